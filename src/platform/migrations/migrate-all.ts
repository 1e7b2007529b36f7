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
  options: {
    concurrency: number;
    onProgress?: (line: string) => void;
    tenantMigrations?: Migration[];
    slugs?: string[];
    /** Told of every tenant whose migration state changed (failed, or recovered), so caches drop it. */
    onTenantStateChange?: (tenantId: number) => Promise<void>;
  },
): Promise<MigrateAllReport> {
  const say = options.onProgress ?? (() => {});
  const platform = await migrateSchema(knex, PlatformDb.SCHEMA, platformMigrations);
  say(`platform: ${platform.applied.length ? `applied ${platform.applied.join(', ')}` : 'up to date'}`);
  const migrations = options.tenantMigrations ?? tenantMigrations;
  const query = knex.withSchema(PlatformDb.SCHEMA).table('tenants').orderBy('slug').select('id', 'slug', 'schema_name');
  if (options.slugs) query.whereIn('slug', options.slugs);
  const tenants: { id: number; slug: string; schema_name: string }[] = await query;
  const tenantsTable = () => knex.withSchema(PlatformDb.SCHEMA).table('tenants');
  // Recorded so the tenant answers 503 (tenant middleware) instead of running new code on an old schema.
  const setState = async (id: number, error: string | null) => {
    const q = tenantsTable().where({ id });
    const changed = error
      ? await q.update({ migration_failed_at: knex.fn.now(), migration_error: error.slice(0, 2000) })
      : await q.whereNotNull('migration_failed_at').update({ migration_failed_at: null, migration_error: null });
    if (changed) await options.onTenantStateChange?.(id);
  };
  const report: MigrateAllReport = { platform: platform.applied, tenants: [], ok: true };
  let done = 0;
  await forEachBounded(tenants, options.concurrency, async (t) => {
    try {
      const r = await migrateSchema(knex, t.schema_name, migrations);
      await setState(t.id, null);
      report.tenants.push({ slug: t.slug, schema: t.schema_name, applied: r.applied });
      done++;
      say(`[${done}/${tenants.length}] ${t.slug}: ${r.applied.length ? `applied ${r.applied.join(', ')}` : 'up to date'}`);
    } catch (err) {
      report.ok = false;
      await setState(t.id, (err as Error).message);
      report.tenants.push({ slug: t.slug, schema: t.schema_name, applied: [], error: (err as Error).message });
      done++;
      say(`[${done}/${tenants.length}] ${t.slug}: FAILED ${(err as Error).message}`);
    }
  });
  return report;
}
