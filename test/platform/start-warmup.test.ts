import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { startServer, type RunningServer } from '../../src/server';
import { TenantResolver } from '../../src/platform/tenant-scope/tenant-resolver';
import { TenantStore } from '../../src/platform/tenant-scope/tenant-store';
import { KNEX, TENANT_POOLS } from '../../src/platform/tokens';

/**
 * What the API does before it listens (src/server.ts), so that the first requests after a start
 * find what steady ones do: every tenant in the cache, every tenant connection open.
 */
let t: TestApp;
let tenants: DemoTenant[];
let server: RunningServer;
/** Statements of the platform pool that look a tenant up, from the moment the server listens. */
const lookups: string[] = [];
let tenantsBefore: number[];

beforeAll(async () => {
  t = await createTestApp({ DATABASE_POOL_MAX: '4', DATABASE_POOL_GROUPS: '2' });
  tenants = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  // a fresh start: nothing of the imports left in the cache
  t.container.resolve(TenantResolver).clear();
  tenantsBefore = (await t.container.resolve<Knex>(KNEX)('platform.tenants').select('id')).map((r) => r.id);
  server = await startServer(t.container, 0);
  t.container.resolve<Knex>(KNEX).on('query', (q: { sql: string }) => {
    if (/tenant_hosts|"tenants"/.test(q.sql)) lookups.push(q.sql);
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await t?.close();
});

describe('the API before it listens', () => {
  it('has every tenant in its cache: the first request of each looks nothing up', async () => {
    expect(t.container.resolve(TenantResolver).cacheSizes().tenants).toBeGreaterThanOrEqual(tenantsBefore.length);
    for (const tenant of tenants) {
      const res = await request(server.server).get('/api/configitems/cors.origins').set('Host', tenant.host);
      // the tenant was found (an unknown one is a 404): the answer needs a login
      expect(res.status, JSON.stringify(res.body)).toBe(401);
    }
    expect(lookups).toEqual([]);
  });

  it('has opened every connection of every tenant connection group', () => {
    const pools = t.container.resolve(TENANT_POOLS);
    for (const group of pools.groups) {
      const pool = (group.client).pool;
      expect(pool.numFree() + pool.numUsed()).toBe(2);
    }
  });

  it('reads the tenants a page at a time, in id order, each with its hosts and config', async () => {
    const store = t.container.resolve(TenantStore);
    const first = await store.loadPage(0, 2);
    expect(first).toHaveLength(2);
    const next = await store.loadPage(first[1].id, 1000);
    const ids = [...first, ...next].map((x) => x.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of tenantsBefore) expect(ids).toContain(id);
    const acme = [...first, ...next].find((x) => x.id === tenants[0].tenantId)!;
    expect(acme).toEqual(await store.load(acme.id));
    expect(acme.hosts).toEqual([tenants[0].host]);
  });
});
