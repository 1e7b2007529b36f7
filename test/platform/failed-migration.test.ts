import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import request from 'supertest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { migrateAll } from '../../src/platform/migrations/migrate-all';
import { tenantMigrations } from '../../migrations/tenant';
import { KNEX } from '../../src/platform/tokens';
import { TenantResolver } from '../../src/platform/tenant-scope/tenant-resolver';
import { TenantAdminService } from '../../src/tenancy/tenants/tenant-admin.service';

let t: TestApp;
let knex: Knex;
let broken: DemoTenant;
let healthy: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  knex = t.container.resolve(KNEX);
  [broken, healthy] = await Promise.all([importDemoTenant(t, 'globex'), importDemoTenant(t, 'globex')]);
});
afterAll(async () => t?.close());

const probe = {
  name: '998_failure_probe',
  async up(trx: Knex.Transaction) {
    await trx.schema.createTable('failure_probe', (tb) => tb.increments('id'));
  },
};
const migrate = () =>
  migrateAll(knex, {
    concurrency: 2,
    slugs: [broken.slug, healthy.slug],
    tenantMigrations: [...tenantMigrations, probe],
    onTenantStateChange: (id) => t.container.resolve(TenantResolver).publishChange(id),
  });
const call = (host: string) => request(t.app).get('/api/person').set('Host', host);

describe('a tenant whose migration failed', () => {
  it('answers 503 with Retry-After until a later migration succeeds; the other tenant is served throughout', async () => {
    // warm the caches first: the failure must reach a process that already holds the tenant
    expect((await call(broken.host)).status).toBe(401);
    await knex.raw('create table ??.failure_probe (id int)', [broken.schema]);

    const report = await migrate();
    expect(report.ok).toBe(false);
    const down = await call(broken.host);
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ valid: false, errorcode: 503, message: `tenant ${broken.slug} is being upgraded; try again later` });
    expect(Number(down.headers['retry-after'])).toBeGreaterThan(0);
    expect((await call(healthy.host)).status).toBe(401);
    const row = await knex.withSchema('platform').table('tenants').where({ id: broken.tenantId }).first('migration_error');
    expect(row.migration_error).toMatch(/998_failure_probe/);
    // operators see it in tenant list and /platform/tenants
    expect((await t.container.resolve(TenantAdminService).get(broken.slug)).migration_failed_at).toBeInstanceOf(Date);

    // still failing: still 503
    expect((await migrate()).ok).toBe(false);
    expect((await call(broken.host)).status).toBe(503);

    await knex.raw('drop table ??.failure_probe', [broken.schema]);
    expect((await migrate()).ok).toBe(true);
    expect((await call(broken.host)).status).toBe(401);
    expect(await knex.withSchema('platform').table('tenants').where({ id: broken.tenantId }).first('migration_failed_at', 'migration_error')).toEqual({
      migration_failed_at: null,
      migration_error: null,
    });

    for (const tn of [broken, healthy]) {
      await knex.raw('drop table ??.failure_probe', [tn.schema]);
      await knex.withSchema(tn.schema).table('schema_migrations').where({ name: probe.name }).delete();
    }
  });
});
