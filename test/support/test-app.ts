import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import type { DependencyContainer } from 'tsyringe';
import type { Express } from 'express';
import request from 'supertest';
import pino from 'pino';
import { loadEnv, type Env } from '../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../src/container';
import { buildApp } from '../../src/app';
import { TenantResolver } from '../../src/platform/tenant-scope/tenant-resolver';
import { PrincipalCache } from '../../src/platform/auth/principal-cache';
import { TenantImporter } from '../../src/tenancy/tenants/tenant-importer';
import { readDemoDocument } from '../../seeds/demo-tenants';
import { assertMatchesContract } from './contract';

export interface TestApp {
  app: Express;
  container: DependencyContainer;
  env: Env;
  close(): Promise<void>;
}

export function testEnv(overrides: Record<string, string> = {}): Env {
  // The test machine is shared and noisy: a tenant's burst (the 50-way sign-on race) may queue
  // behind its connection share for longer than in production; tenant-pools.test sets its own wait.
  // No spare schemas in the shared test database unless a test asks (test/tenancy/tenants/placement).
  // No preload of recent persons unless a test asks (test/platform/recent-persons.test.ts): every file's servers
  // would otherwise load the persons every other file's servers served, and start that much later.
  return loadEnv({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_TENANT_WAIT_MS: '30000',
    TENANT_SPARE_SCHEMAS: '0',
    STARTUP_PRELOAD_PERSONS: '0',
    ...overrides,
  });
}

/** The real app on the run's PostgreSQL and Redis. */
export async function createTestApp(
  overrides: Record<string, string> = {},
  logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
): Promise<TestApp> {
  const env = testEnv(overrides);
  const container = buildContainer(env, { databaseUrl: inject('databaseUrl'), redisUrl: inject('redisUrl') }, logger);
  await container.resolve(TenantResolver).start();
  await container.resolve(PrincipalCache).start();
  const app = buildApp(container);
  return {
    app,
    container,
    env,
    async close() {
      await container.resolve(TenantResolver).stop();
      await container.resolve(PrincipalCache).stop();
      await closeContainer(container);
    },
  };
}

export interface DemoTenant {
  slug: string;
  host: string;
  tenantId: number;
  schema: string;
}

/** Imports a demo document as a fresh tenant with a unique slug and host, so test files never share data. */
export async function importDemoTenant(t: TestApp, which: 'acme' | 'globex', mutate?: (doc: any) => void): Promise<DemoTenant> {
  const doc = readDemoDocument(which);
  mutate?.(doc);
  const slug = `${which}-${randomBytes(4).toString('hex')}`;
  const host = `${slug}.test`;
  const r = await t.container.resolve(TenantImporter).import(doc, { slug, hosts: [host], onProgress: () => {} });
  return { slug, host, tenantId: r.tenantId, schema: r.schema };
}

/** supertest agent bound to a tenant host; an optional cookie is sent on every call. */
export function client(t: TestApp, host: string, cookie?: string) {
  const withHeaders = (method: string, url: string, r: request.Test) => {
    r.set('Host', host);
    if (cookie) r.set('Cookie', cookie);
    // Every response a test receives is checked against the OpenAPI document.
    r.expect((res) => assertMatchesContract(method, url, res));
    return r;
  };
  const agent = request(t.app);
  return {
    get: (url: string) => withHeaders('get', url, agent.get(url)),
    post: (url: string) => withHeaders('post', url, agent.post(url)),
    put: (url: string) => withHeaders('put', url, agent.put(url)),
    delete: (url: string) => withHeaders('delete', url, agent.delete(url)),
  };
}

/** The app and a fresh acme tenant around a test file's tests; read the fields inside tests. */
export function useAcmeApp(): { t: TestApp; acme: DemoTenant } {
  const bed = {} as { t: TestApp; acme: DemoTenant };
  beforeAll(async () => {
    bed.t = await createTestApp();
    bed.acme = await importDemoTenant(bed.t, 'acme');
  });
  afterAll(async () => {
    await bed.t?.close();
  });
  return bed;
}
