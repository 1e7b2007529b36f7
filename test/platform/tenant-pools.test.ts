import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { TenantResolver } from '../../src/platform/tenancy/tenant-resolver';
import { openTenantScope } from '../../src/platform/tenancy/request-scope';
import { TENANT_DB, TENANT_POOLS } from '../../src/platform/tokens';
import type { Tenant } from '../../src/platform/tenancy/tenant';

let t: TestApp;
let tenants: Tenant[];

beforeAll(async () => {
  t = await createTestApp({ DATABASE_POOL_MAX: '4', DATABASE_POOL_GROUPS: '2' });
  const imported: DemoTenant[] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  const resolver = t.container.resolve(TenantResolver);
  tenants = (await Promise.all(imported.map((d) => resolver.byTenantId(d.tenantId)))) as Tenant[];
});
afterAll(async () => t?.close());

/** The Postgres backend a tenant-scoped query ran on. */
async function backendOf(tenant: Tenant): Promise<number> {
  const db = openTenantScope(t.container, tenant).resolve(TENANT_DB);
  const { rows } = await db.raw('select pg_backend_pid() as pid, count(*) from ?? ', [db.ref('persons')]);
  return rows[0].pid;
}

describe('tenant-affine connection groups', () => {
  it('splits DATABASE_POOL_MAX over DATABASE_POOL_GROUPS, and a tenant always uses the group of its id', async () => {
    const pools = t.container.resolve(TENANT_POOLS);
    expect(pools.groups).toHaveLength(2);
    for (const g of pools.groups) expect((g.client as { config: { pool: { max: number } } }).config.pool.max).toBe(2);
    for (const tenant of tenants) {
      expect(openTenantScope(t.container, tenant).resolve(TENANT_DB).builder).toBe(pools.forTenant(tenant.id));
      expect(pools.forTenant(tenant.id)).toBe(pools.groups[tenant.id % 2]);
    }
  });

  it('many concurrent queries of one tenant never run on a connection of the other group', async () => {
    const byGroup = new Map<number, Set<number>>();
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const tenant = tenants[i % tenants.length];
        const pid = await backendOf(tenant);
        const group = tenant.id % 2;
        if (!byGroup.has(group)) byGroup.set(group, new Set());
        byGroup.get(group)!.add(pid);
      }),
    );
    const groups = [...byGroup.values()];
    for (const pids of groups) expect(pids.size).toBeLessThanOrEqual(2);
    if (groups.length === 2) expect([...groups[0]].filter((pid) => groups[1].has(pid))).toEqual([]);
  });
});
