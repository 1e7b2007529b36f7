import type { Knex } from 'knex';
import { PlatformDb } from '../tenant-scope/platform-db';
import { migrateSchema, type Migration } from './migration-runner';
import { platformMigrations } from '../../../migrations/platform';
import { tenantMigrations } from '../../../migrations/tenant';
import type { Clusters } from '../clusters/clusters';
import { listSpares, SPARE_PREFIX } from '../clusters/spare-catalog';

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
    /** Tenants on other clusters are migrated there, and every cluster's spare schemas too. Without it, everything is on `knex`. */
    clusters?: Clusters;
  },
): Promise<MigrateAllReport> {
  const say = options.onProgress ?? (() => {});
  const platform = await migrateSchema(knex, PlatformDb.SCHEMA, platformMigrations);
  say(`platform: ${platform.applied.length ? `applied ${platform.applied.join(', ')}` : 'up to date'}`);
  const migrations = options.tenantMigrations ?? tenantMigrations;
  const query = knex.withSchema(PlatformDb.SCHEMA).table('tenants').orderBy('slug').select('id', 'slug', 'schema_name', 'cluster');
  if (options.slugs) query.whereIn('slug', options.slugs);
  const tenants: { id: number; slug: string; schema_name: string; cluster: string }[] = await query;
  const on = (cluster: string) => (options.clusters ? options.clusters.admin(cluster) : knex);
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
    // a cluster this process does not know is its configuration's fault, not the tenant's: reported, never recorded as failed
    if (options.clusters && !options.clusters.has(t.cluster)) {
      report.ok = false;
      report.tenants.push({
        slug: t.slug,
        schema: t.schema_name,
        applied: [],
        error: `cluster ${t.cluster} is not declared in TENANT_DATABASE_URLS of this process`,
      });
      done++;
      say(`[${done}/${tenants.length}] ${t.slug}: SKIPPED: cluster ${t.cluster} is not declared here`);
      return;
    }
    try {
      const r = await migrateSchema(on(t.cluster), t.schema_name, migrations);
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
  if (options.clusters && !options.slugs) await migrateSpares(options.clusters, migrations, options.concurrency, say);
  return report;
}

/**
 * Spare schemas follow every new tenant migration, so that a claimed spare is current. One that
 * fails is dropped (it holds no data; the workers make a new one), never handed to a tenant.
 */
export async function migrateSpares(clusters: Clusters, migrations: Migration[], concurrency: number, say: (line: string) => void): Promise<void> {
  for (const cluster of clusters.names) {
    const admin = clusters.admin(cluster);
    const spares = await listSpares(admin);
    if (!spares.length) continue;
    let dropped = 0;
    await forEachBounded(spares, concurrency, async (schema) => {
      try {
        await migrateSchema(admin, schema, migrations);
      } catch {
        dropped++;
        if (schema.startsWith(SPARE_PREFIX)) await admin.raw('drop schema if exists ?? cascade', [schema]).catch(() => {});
      }
    });
    say(`${cluster}: ${spares.length} spare schemas migrated${dropped ? `, ${dropped} failed and dropped` : ''}`);
  }
}
