import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { migrateAll } from '../../src/platform/migrations/migrate-all';
import { tenantMigrations } from '../../migrations/tenant';
import { KNEX } from '../../src/platform/tokens';

let t: TestApp;
let knex: Knex;
let a: DemoTenant;
let b: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  knex = t.container.resolve(KNEX);
  [a, b] = await Promise.all([importDemoTenant(t, 'globex'), importDemoTenant(t, 'globex')]);
});
afterAll(async () => t?.close());

describe('migrate all', () => {
  it('is idempotent: a second run applies nothing', async () => {
    const lines: string[] = [];
    const report = await migrateAll(knex, { concurrency: 2, slugs: [a.slug, b.slug], onProgress: (l) => lines.push(l) });
    expect(report.ok).toBe(true);
    expect(report.tenants.find((x) => x.slug === a.slug)?.applied).toEqual([]);
    expect(lines.some((l) => l.includes(`${a.slug}: up to date`))).toBe(true);
  });

  it('reports a failing tenant, migrates the others, and leaves the failed one untouched', async () => {
    // A tenant whose schema already has the table a new migration creates fails on it.
    await knex.raw('create table ??.probe_table (id int)', [a.schema]);
    const probe = {
      name: '999_probe',
      async up(trx: Knex.Transaction) {
        await trx.schema.createTable('probe_table', (tb) => tb.increments('id'));
        await trx.schema.createTable('probe_second', (tb) => tb.increments('id'));
      },
    };
    const lines: string[] = [];
    const report = await migrateAll(knex, {
      concurrency: 3,
      slugs: [a.slug, b.slug],
      tenantMigrations: [...tenantMigrations, probe],
      onProgress: (l) => lines.push(l),
    });
    expect(report.ok).toBe(false);
    const failed = report.tenants.find((x) => x.slug === a.slug)!;
    expect(failed.error).toMatch(/999_probe/);
    expect(report.tenants.find((x) => x.slug === b.slug)!.applied).toEqual(['999_probe']);
    expect(lines.some((l) => l.includes(`${a.slug}: FAILED`))).toBe(true);
    // One transaction per tenant: nothing of the failed migration stayed behind.
    const second = await knex.raw('select to_regclass(?) as t', [`${a.schema}.probe_second`]);
    expect(second.rows[0].t).toBeNull();
    await knex.raw('drop table ??.probe_second', [b.schema]);
    await knex.raw('drop table ??.probe_table', [b.schema]);
    await knex.raw('drop table ??.probe_table', [a.schema]);
    await knex.withSchema(b.schema).table('schema_migrations').where({ name: '999_probe' }).delete();
  });

  it('an unqualified query fails instead of reading some schema', async () => {
    await expect(knex.raw('select count(*) from persons')).rejects.toThrow(/does not exist/);
  });
});
