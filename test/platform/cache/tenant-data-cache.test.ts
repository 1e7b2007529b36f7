import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { container } from 'tsyringe';
import { TenantDataCache } from '../../../src/platform/cache/tenant-data-cache';
import { CLOCK } from '../../../src/platform/time/tenant-clock';
import type { PrincipalCache } from '../../../src/platform/auth/principal-cache';
import type { Env } from '../../../src/platform/config/env';
import type { Tenant } from '../../../src/platform/tenant-scope/tenant';

// The cache's own logic, with the data version in the test's hand (the listener's part is
// covered end to end by test/platform/cached-reads.test.ts).
function cacheWith(version: { v: string | null }, entries?: number) {
  const root = container.createChildContainer();
  root.register(CLOCK, { useValue: { now: () => new Date() } });
  const versions = { dataVersion: () => version.v } as unknown as PrincipalCache;
  return new TenantDataCache(versions, { PRINCIPAL_CACHE_SECONDS: 60, TENANT_DATA_CACHE_ENTRIES: entries } as Env, root);
}
const tenant = { schema: 'tenant_a' } as Tenant;
const other = { schema: 'tenant_b' } as Tenant;

describe('TenantDataCache', () => {
  it('runs one load for requests that miss the same entry together, and serves it frozen to all', async () => {
    const cache = cacheWith({ v: '1' });
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const load = async () => {
      loads++;
      await gate;
      return { items: [{ n: 1 }] };
    };
    const all = Array.from({ length: 10 }, () => cache.get(tenant, 'k', load));
    release();
    const values = await Promise.all(all);
    expect(loads).toBe(1);
    expect(new Set(values).size).toBe(1);
    expect(Object.isFrozen(values[0].items[0])).toBe(true);
    await cache.get(tenant, 'k', load);
    expect(loads).toBe(1);
    // counted for GET /metrics (tenant_data_cache_lookups_total): one load, nine sharing it, one hit
    expect(cache.lookups).toEqual({ hit: 1, shared: 9, miss: 1, bypass: 0 });
  });

  it('shares no load across tenants or versions, and a failed load is not kept', async () => {
    const version = { v: '1' as string | null };
    const cache = cacheWith(version);
    let loads = 0;
    const load = async () => ({ n: ++loads });
    const [a, b] = await Promise.all([cache.get(tenant, 'k', load), cache.get(other, 'k', load)]);
    expect(a).not.toBe(b);
    version.v = '2';
    expect((await cache.get(tenant, 'k', load)).n).toBe(3);
    const failing = () => Promise.reject(new Error('database away'));
    await expect(Promise.all([cache.get(tenant, 'f', failing), cache.get(tenant, 'f', failing)])).rejects.toThrow('database away');
    expect((await cache.get(tenant, 'f', load)).n).toBe(4);
    version.v = null; // listener lost: nothing is cached or shared
    expect((await cache.get(tenant, 'k', load)).n).toBe(5);
    expect((await cache.get(tenant, 'k', load)).n).toBe(6);
    expect(cache.lookups.bypass).toBe(2);
  });

  it('past its budget drops the least recently used entry, not everything', async () => {
    const cache = cacheWith({ v: '1' }, 3);
    let loads = 0;
    const load = async () => ({ n: ++loads });
    for (const k of ['a', 'b', 'c']) await cache.get(tenant, k, load);
    await cache.get(tenant, 'a', load); // a is used again: b is now the least recent
    await cache.get(tenant, 'd', load); // over budget: b goes
    expect(loads).toBe(4);
    for (const k of ['a', 'c', 'd']) await cache.get(tenant, k, load);
    expect(loads).toBe(4);
    await cache.get(tenant, 'b', load);
    expect(loads).toBe(5);
  });
});
