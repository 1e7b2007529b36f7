import type { Knex } from 'knex';
import { PlatformDb } from '../tenancy/platform-db';
import { migrateSchema, type Migration } from './migration-runner';
import { platformMigrations } from '../../../migrations/platform';
import { tenantMigrations } from '../../../migrations/tenant';

export interface MigrateAllReport {
  platform: string[];
  tenants: { slug: string; schema: string; applied: string[]; error?: string }[];
  ok: boolean;
}

/** Runs fn over items with at most `limit` in flight. */
export async function forEachBounded<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  });
  await Promise.all(workers);
}

/**
 * Platform schema first, then every tenant with bounded concurrency, one transaction
 * each. A failing tenant is reported and the others carry on.
 */
export async function migrateAll(
  knex: Knex,
  options: { concurrency: number; onProgress?: (line: string) => void; tenantMigrations?: Migration[]; slugs?: string[] },
): Promise<MigrateAllReport> {
  const say = options.onProgress ?? (() => {});
  const platform = await migrateSchema(knex, PlatformDb.SCHEMA, platformMigrations);
  say(`platform: ${platform.applied.length ? `applied ${platform.applied.join(', ')}` : 'up to date'}`);
  const migrations = options.tenantMigrations ?? tenantMigrations;
  const query = knex.withSchema(PlatformDb.SCHEMA).table('tenants').orderBy('slug').select('slug', 'schema_name');
  if (options.slugs) query.whereIn('slug', options.slugs);
  const tenants: { slug: string; schema_name: string }[] = await query;
  const report: MigrateAllReport = { platform: platform.applied, tenants: [], ok: true };
  let done = 0;
  await forEachBounded(tenants, options.concurrency, async (t) => {
    try {
      const r = await migrateSchema(knex, t.schema_name, migrations);
      report.tenants.push({ slug: t.slug, schema: t.schema_name, applied: r.applied });
      done++;
      say(`[${done}/${tenants.length}] ${t.slug}: ${r.applied.length ? `applied ${r.applied.join(', ')}` : 'up to date'}`);
    } catch (err) {
      report.ok = false;
      report.tenants.push({ slug: t.slug, schema: t.schema_name, applied: [], error: (err as Error).message });
      done++;
      say(`[${done}/${tenants.length}] ${t.slug}: FAILED ${(err as Error).message}`);
    }
  });
  return report;
}
