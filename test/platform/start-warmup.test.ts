import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
/** Connections of each tenant connection group right after the start (an idle one is closed after 30 s). */
let openRightAfterStart: number[];
/** Right after the start: whether each tenant there before it was found, and the lookups that took. */
const foundRightAfterStart: boolean[] = [];
let lookupsRightAfterStart: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ DATABASE_POOL_MAX: '4', DATABASE_POOL_GROUPS: '2' });
  tenants = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  // a fresh start: nothing of the imports left in the cache
  t.container.resolve(TenantResolver).clear();
  tenantsBefore = (await t.container.resolve<Knex>(KNEX)('platform.tenants').select('id')).map((r) => r.id);
  server = await startServer(t.container, 0);
  openRightAfterStart = t.container.resolve(TENANT_POOLS).groups.map((group) => {
    const pool = group.client.pool;
    return pool.numFree() + pool.numUsed();
  });
  // every tenant there before the start and not deleted since, looked up right away: other test files change
  // their tenants all the time, and a changed tenant leaves the cache (correctly), so the check cannot wait
  const stillThere = new Set((await t.container.resolve<Knex>(KNEX)('platform.tenants').select('id')).map((r) => r.id));
  t.container.resolve<Knex>(KNEX).on('query', (q: { sql: string }) => {
    if (/tenant_hosts|"tenants"/.test(q.sql)) lookups.push(q.sql);
  });
  const resolver = t.container.resolve(TenantResolver);
  for (const id of tenantsBefore.filter((x) => stillThere.has(x))) foundRightAfterStart.push((await resolver.byTenantId(id)) !== null);
  lookupsRightAfterStart = [...lookups];
  lookups.length = 0;
}, 60_000);
afterAll(async () => {
  await server?.close();
  await t?.close();
});

describe('the API before it listens', () => {
  it('has every tenant in its cache: the first request of each looks nothing up', async () => {
    for (const tenant of tenants) {
      const res = await request(server.server).get('/api/configitems/cors.origins').set('Host', tenant.host);
      // the tenant was found (an unknown one is a 404): the answer needs a login
      expect(res.status, JSON.stringify(res.body)).toBe(401);
    }
    // every tenant there before the start (those deleted since left out) was answered from the cache
    expect(foundRightAfterStart.length).toBeGreaterThanOrEqual(tenants.length);
    expect(foundRightAfterStart.every(Boolean)).toBe(true);
    expect(lookupsRightAfterStart).toEqual([]);
  });

  it('has opened every connection of every tenant connection group', () => {
    expect(openRightAfterStart).toEqual(t.container.resolve(TENANT_POOLS).groups.map(() => 2));
  });

  it('keeps its cache when the subscriber readies late: a first ready is not a reconnect', () => {
    const resolver = t.container.resolve(TenantResolver);
    const before = resolver.cacheSizes().tenants;
    expect(before).toBeGreaterThanOrEqual(2);
    // what ioredis does when its first ready comes after the preload (a cluster, or a slow first connect)
    (resolver as any).subscriber.emit('ready');
    expect(resolver.cacheSizes().tenants).toBe(before);
  });

  it('reads the tenants a page at a time, in id order, each with its hosts and config', async () => {
    const store = t.container.resolve(TenantStore);
    const first = await store.loadPage(0, 2);
    expect(first).toHaveLength(2);
    const next = await store.loadPage(first[1].id, 1000);
    const ids = [...first, ...next].map((x) => x.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    for (const tenant of tenants) expect(ids).toContain(tenant.tenantId);
    const acme = [...first, ...next].find((x) => x.id === tenants[0].tenantId)!;
    expect(acme).toEqual(await store.load(acme.id));
    expect(acme.hosts).toEqual([tenants[0].host]);
  });

  it('reads a page again when a tenant change comes in while it is read: the cache and the clusters are not left empty', async () => {
    // what another process's tenant change (another test file's, in a full run) did to the start-up:
    // the page was dropped, leaving the cache and the clusters to open connections to empty
    const resolver = t.container.resolve(TenantResolver);
    const store = (resolver as any).store as TenantStore;
    const loadPage = store.loadPage.bind(store);
    let calls = 0;
    const spy = vi.spyOn(store, 'loadPage').mockImplementation(async (afterId, limit) => {
      const page = await loadPage(afterId, limit);
      if (calls++ === 0) resolver.forget(-1);
      return page;
    });
    try {
      resolver.clear();
      const r = await resolver.preload();
      expect(r.clusters).toEqual(['main']);
      expect(r.read.map((x) => x.id)).toEqual(expect.arrayContaining(tenants.map((x) => x.tenantId)));
      expect(resolver.cacheSizes().tenants).toBe(r.tenants);
      expect(r.tenants).toBeGreaterThanOrEqual(tenants.length);
      expect(calls).toBeGreaterThanOrEqual(2);
    } finally {
      spy.mockRestore();
    }
  });

  // last: it empties the cache
  it('starts over from the database after its subscriber reconnects (messages may have been missed)', async () => {
    const resolver = t.container.resolve(TenantResolver);
    await resolver.preload();
    expect(resolver.cacheSizes().tenants).toBeGreaterThanOrEqual(2);
    const subscriber = (resolver as any).subscriber as import('ioredis').Redis;
    const ready = new Promise((resolve) => subscriber.once('ready', resolve));
    subscriber.disconnect(true);
    await ready;
    expect(resolver.cacheSizes().tenants).toBe(0);
  });
});
