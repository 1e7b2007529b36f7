import type { Knex } from 'knex';
import { KNEX } from '../../../src/platform/tokens';
import { TenantDb } from '../../../src/platform/tenant-scope/tenant-db';
import { TenantStore } from '../../../src/platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import type { DemoTenant, TestApp } from '../../support/test-app';

/** A TenantDb on the test tenant's schema, for arranging data the API of this branch cannot write. */
export function tenantDb(t: TestApp, tenant: DemoTenant): TenantDb {
  return new TenantDb(t.container.resolve<Knex>(KNEX), tenant.schema);
}

/** Event ids by their fixture titles. */
export async function eventIdsByTitle(t: TestApp, tenant: DemoTenant): Promise<Record<string, number>> {
  const rows = await tenantDb(t, tenant).table('events').select('id', 'title');
  return Object.fromEntries(rows.map((r: { id: number; title: string }) => [r.title, r.id]));
}

export async function idOf(t: TestApp, tenant: DemoTenant, table: string, where: Record<string, unknown>): Promise<number> {
  const row = await tenantDb(t, tenant).table(table).where(where).first('id');
  if (!row) throw new Error(`no ${table} ${JSON.stringify(where)}`);
  return row.id;
}

/** Sets a config item the way the (separately built) configitems PUT does, and pushes the change. */
export async function setConfig(t: TestApp, tenant: DemoTenant, item: string, value: unknown): Promise<void> {
  await t.container.resolve(TenantStore).setConfigItem(tenant.tenantId, item, value, 'test');
  await t.container.resolve(TenantResolver).publishChange(tenant.tenantId);
}
