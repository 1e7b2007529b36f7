import { describe, expect, it } from 'vitest';
import { Client } from 'pg';
import { CLUSTERS } from '../../../../src/platform/clusters/clusters';
import { tenantMigrations } from '../../../../migrations/tenant';
import { migrateSchema } from '../../../../src/platform/migrations/migration-runner';
import { catalogTables } from '../../../../src/tenancy/tenants/archive/schema-catalog';
import { captureTriggerSql, installMoveHelpers } from '../../../../src/tenancy/tenants/placement/move-triggers';
import { MoveLeftovers } from '../../../../src/tenancy/tenants/placement/move-leftovers';
import { TenantAdminService } from '../../../../src/tenancy/tenants/tenant-admin.service';
import { client } from '../../../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../../../support/login';
import { importOn, useTwoClusters } from './second-cluster';

/**
 * Issue 40 item 8: what a move leaves behind (capture triggers and change log rows on the source,
 * a partial copy on the target, an old copy after the switch) is recorded in tenant_moves.state and
 * removed by the sweeper (the workers' once-a-minute clean-up, called directly here) once no mover
 * holds the tenant's move lock; deleting a tenant drops its copies on the other clusters.
 */
const bed = useTwoClusters();
const admin = (cluster: string) => bed.t.container.resolve(CLUSTERS).admin(cluster);
const moves = () => admin('main').withSchema('platform').table('tenant_moves');

const schemaOn = async (cluster: string, schema: string) =>
  (await admin(cluster).raw('select 1 from pg_namespace where nspname = ?', [schema])).rows.length === 1;
const moveTriggers = async (schema: string) =>
  (
    await admin('main').raw(
      "select count(*)::int as n from pg_trigger g join pg_class c on c.oid = g.tgrelid join pg_namespace s on s.oid = c.relnamespace where s.nspname = ? and g.tgname like '%tenant_move%'",
      [schema],
    )
  ).rows[0].n as number;
const changesOf = async (schema: string) =>
  Number((await admin('main').raw('select count(*) as n from tenant_moves.changes where schema_name = ?', [schema])).rows[0].n);

/** What a mover killed while copying leaves: capture triggers (and captured writes) on main, a partial copy on b, the row in state copying. */
async function killedWhileCopying(schema: string, tenantId: number): Promise<number> {
  const src = new Client({ connectionString: bed.mainUrl });
  await src.connect();
  try {
    await installMoveHelpers(src);
    const tables = await catalogTables(admin('main'), schema);
    await src.query(captureTriggerSql(src, schema, tables));
    await src.query(`update ${src.escapeIdentifier(schema)}.persons set firstname = firstname where user_name = 'ola'`);
  } finally {
    await src.end();
  }
  await migrateSchema(admin('b'), schema, tenantMigrations.slice(0, 5));
  const [row] = await moves().insert({ tenant_id: tenantId, from_cluster: 'main', to_cluster: 'b', state: 'copying' }).returning('id');
  return row.id;
}

describe('move leftovers', () => {
  it('the sweeper leaves a move alone while its mover holds the lock, and cleans up after a killed mover', async () => {
    const tenant = await importOn(bed.t, 'acme', 'main');
    const moveId = await killedWhileCopying(tenant.schema, tenant.tenantId);
    expect([(await moveTriggers(tenant.schema)) > 0, (await changesOf(tenant.schema)) > 0, await schemaOn('b', tenant.schema)]).toEqual([true, true, true]);
    const sweeper = bed.t.container.resolve(MoveLeftovers);

    // a mover still running (it holds the tenant's move lock): not touched
    const mover = new Client({ connectionString: bed.mainUrl });
    await mover.connect();
    try {
      await mover.query('select pg_advisory_lock(hashtext($1))', [`tenant-move:${tenant.tenantId}`]);
      expect(await sweeper.sweep()).toEqual([]);
      expect((await moves().where({ id: moveId }).first('state')).state).toBe('copying');
      expect(await schemaOn('b', tenant.schema)).toBe(true);
    } finally {
      await mover.end();
    }

    // the mover is gone: triggers, captured changes and the partial copy go; the tenant serves from main
    const lines = await sweeper.sweep();
    expect(lines.join('\n')).toContain(`move ${moveId}`);
    expect((await moves().where({ id: moveId }).first('state')).state).toBe('rolled_back');
    expect([
      await moveTriggers(tenant.schema),
      await changesOf(tenant.schema),
      await schemaOn('b', tenant.schema),
      await schemaOn('main', tenant.schema),
    ]).toEqual([0, 0, false, true]);
    const api = client(bed.t, tenant.host, await loginCookie(bed.t, tenant.host, 'admin', ACME_PASSWORDS.admin));
    expect((await api.put('/api/persons/ola').send({ person_data: { firstname: 'Ola-after' } })).status).toBe(200);
    expect(await changesOf(tenant.schema)).toBe(0);
  });

  it("drops a switched move's old copy once the grace period is over, never the tenant's own schema", async () => {
    const tenant = await importOn(bed.t, 'acme', 'b');
    // the mover was killed after the switch to b, before it dropped the old copy on main
    await migrateSchema(admin('main'), tenant.schema, tenantMigrations.slice(0, 5));
    const [{ id }] = await moves().insert({ tenant_id: tenant.tenantId, from_cluster: 'main', to_cluster: 'b', state: 'switched' }).returning('id');
    const sweeper = bed.t.container.resolve(MoveLeftovers);
    expect(await sweeper.sweep(3_600_000)).toEqual([]);
    expect(await schemaOn('main', tenant.schema)).toBe(true);
    expect((await sweeper.sweep(0)).join('\n')).toContain(`move ${id}`);
    expect([await schemaOn('main', tenant.schema), await schemaOn('b', tenant.schema)]).toEqual([false, true]);
    expect((await moves().where({ id }).first('state')).state).toBe('done');
  });

  it('drops the old copy of a move that failed at the switch but did switch (outcome unknown to the mover)', async () => {
    const tenant = await importOn(bed.t, 'acme', 'b');
    await migrateSchema(admin('main'), tenant.schema, tenantMigrations.slice(0, 5));
    const [{ id }] = await moves()
      .insert({ tenant_id: tenant.tenantId, from_cluster: 'main', to_cluster: 'b', state: 'failed', error: 'could not tell whether tenant was switched' })
      .returning('id');
    expect((await bed.t.container.resolve(MoveLeftovers).sweep()).join('\n')).toContain(`move ${id}`);
    expect([await schemaOn('main', tenant.schema), await schemaOn('b', tenant.schema)]).toEqual([false, true]);
    expect((await moves().where({ id }).first('state')).state).toBe('done');
  });

  it('deleting a tenant drops the copy a move left on another cluster', async () => {
    const tenant = await importOn(bed.t, 'acme', 'main');
    await killedWhileCopying(tenant.schema, tenant.tenantId);
    expect(await schemaOn('b', tenant.schema)).toBe(true);
    const report = await bed.t.container.resolve(TenantAdminService).delete(tenant.slug);
    expect(report.purged.join('\n')).toContain(`b: ${tenant.schema} dropped`);
    expect([await schemaOn('main', tenant.schema), await schemaOn('b', tenant.schema), await changesOf(tenant.schema)]).toEqual([false, false, 0]);
    expect(await moves().where({ tenant_id: tenant.tenantId })).toEqual([]);
  });
});
