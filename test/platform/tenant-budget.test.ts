import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTenantPools, type TenantPools } from '../../src/platform/db/tenant-pools';
import { TenantBudget } from '../../src/platform/db/tenant-budget';
import { loadEnv } from '../../src/platform/config/env';

const opened: TenantPools[] = [];
afterAll(async () => Promise.all(opened.map((p) => p.destroy())));

function pools(overrides: Record<string, string>): TenantPools {
  const env = loadEnv({ DATABASE_POOL_MAX: '1', DATABASE_POOL_GROUPS: '1', DATABASE_TENANT_SHARE_PERCENT: '100', ...overrides });
  const p = createTenantPools(env, inject('databaseUrl'));
  opened.push(p);
  return p;
}

const backend = async (p: TenantPools, tenantId: number): Promise<number> => (await p.forTenant(tenantId).raw('select pg_backend_pid() as pid')).rows[0].pid;

describe('connection recycling by tenants served (DATABASE_CONNECTION_MAX_TENANTS)', () => {
  it('keeps a connection while it serves at most the budget of distinct tenants, then replaces it', async () => {
    const p = pools({ DATABASE_CONNECTION_MAX_TENANTS: '3' });
    const first = await backend(p, 1);
    // the same tenants again and again do not use the budget up
    for (let i = 0; i < 5; i++) for (const id of [1, 2, 3]) expect(await backend(p, id)).toBe(first);
    expect(p.budget?.recycled).toBe(0);
    // a 4th distinct tenant still runs on it (the budget is checked when a connection is handed out) ...
    expect(await backend(p, 4)).toBe(first);
    // ... and the next query of any tenant gets a fresh connection
    const second = await backend(p, 1);
    expect(second).not.toBe(first);
    expect(p.budget?.recycled).toBe(1);
    for (const id of [1, 2, 3]) expect(await backend(p, id)).toBe(second);
    expect(await backend(p, 5)).toBe(second);
    expect(await backend(p, 6)).not.toBe(second);
  });

  it('counts transactions too, and 0 turns recycling off (lifetime only)', async () => {
    const p = pools({ DATABASE_CONNECTION_MAX_TENANTS: '1' });
    const pidIn = (id: number) => p.forTenant(id).transaction(async (trx) => (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid as number);
    const a = await pidIn(1);
    expect(await pidIn(2)).toBe(a);
    expect(await pidIn(1)).not.toBe(a);

    const off = pools({ DATABASE_CONNECTION_MAX_TENANTS: '0' });
    expect(off.budget).toBeNull();
    const pid = await backend(off, 1);
    for (let id = 2; id < 50; id++) expect(await backend(off, id)).toBe(pid);
  });

  it('keeps one budget per connection: tenants of other connections do not count', () => {
    const budget = new TenantBudget(2);
    const [c1, c2] = [{}, {}];
    for (const id of [1, 2]) budget.touch(c1, id);
    for (const id of [3, 4, 5]) budget.touch(c2, id);
    expect(budget.tenantsOf(c1)).toBe(2);
    expect(budget.keep(c1)).toBe(true);
    expect(budget.keep(c2)).toBe(false);
    expect(budget.keep({})).toBe(true);
    expect(budget.recycled).toBe(1);
  });
});
