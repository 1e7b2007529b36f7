import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { LOGGER } from '../../platform/tokens';
import { CLUSTERS, type Clusters } from '../../platform/clusters/clusters';
import { TenantStore } from '../../platform/tenant-scope/tenant-store';

/** Tenants scanned per scrape (active ones, by slug); beyond that the gauge says nothing. */
export const OUTBOX_SCAN_TENANTS = 5000;
/** Tenants per UNION ALL query. */
const CHUNK = 100;
/** Scrapes within this window reuse the last scan. */
const CACHE_MS = 15_000;
/** Every tenant's outbox is probed again this often, changed or not (a TRUNCATE, a stats reset). */
const FULL_SCAN_MS = 3_600_000;

export interface OutboxAgeReading {
  tenant: string;
  ageSeconds: number;
}

interface Known {
  /** The outbox table's oid and write counter when it was probed. */
  version: string;
  /** created_at (ms) of the oldest message with an undelivered delivery; null when none. */
  oldest: number | null;
}

/**
 * Age of each tenant's oldest undelivered message (a delivery still queued or sending), without
 * probing every tenant's outbox on every scrape. One statement per cluster reads PostgreSQL's
 * write counters of each tenant's `message_deliveries` (pg_stat_get_tuples_inserted / updated /
 * deleted: shared-memory statistics, no table opened); only outboxes written since they were last
 * probed are probed again (CHUNK tenants per UNION ALL query, each part one probe of the partial
 * index of undelivered rows), and every one of them every FULL_SCAN_MS. The counters are read
 * before the probe and only grow after a commit, so a change is never missed: at worst it is seen
 * a few seconds late (statistics are flushed within ~10 s) and probed twice. At rest a scrape
 * costs one catalog statement per cluster, whatever the number of tenants. At most
 * OUTBOX_SCAN_TENANTS tenants; the result is cached for CACHE_MS. Tenant schemas are named by the
 * platform's own tenants table, read-only; nothing here touches search_path.
 */
@injectable()
export class OutboxAge {
  /** Scrapes within this window reuse the last scan (tests set 0). */
  cacheMs = CACHE_MS;
  private cached: { at: number; readings: Promise<OutboxAgeReading[]> } | null = null;
  /** schema -> what its last probe found */
  private readonly known = new Map<string, Known>();
  private lastFullScan = 0;

  constructor(
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  read(): Promise<OutboxAgeReading[]> {
    if (!this.cached || Date.now() - this.cached.at > this.cacheMs) {
      const readings = this.scan().catch((err) => {
        this.logger.warn({ err: (err as Error).message }, 'outbox age metric unavailable');
        this.cached = null;
        return [];
      });
      this.cached = { at: Date.now(), readings };
    }
    return this.cached.readings;
  }

  private async scan(): Promise<OutboxAgeReading[]> {
    const active = (await this.store.list()).filter((t) => t.status === 'active').slice(0, OUTBOX_SCAN_TENANTS);
    const full = Date.now() - this.lastFullScan >= FULL_SCAN_MS;
    if (full) {
      this.known.clear();
      this.lastFullScan = Date.now();
    }
    const out: OutboxAgeReading[] = [];
    const byCluster = new Map<string, typeof active>();
    for (const t of active) {
      const list = byCluster.get(t.cluster) ?? [];
      list.push(t);
      byCluster.set(t.cluster, list);
    }
    for (const [cluster, tenants] of byCluster) if (this.clusters.has(cluster)) out.push(...(await this.scanCluster(this.clusters.admin(cluster), tenants)));
    return out;
  }

  private async scanCluster(knex: Knex, tenants: { slug: string; schema_name: string }[]): Promise<OutboxAgeReading[]> {
    const versions = await outboxVersions(knex);
    // schemas without the messages tables yet (not migrated) have no version and are left out
    const present = tenants.filter((t) => versions.has(t.schema_name));
    const stale = present.filter((t) => this.known.get(t.schema_name)?.version !== versions.get(t.schema_name));
    for (let i = 0; i < stale.length; i += CHUNK) {
      const parts = stale.slice(i, i + CHUNK);
      const sql = parts
        .map(
          () => `(select ?::text as schema, (extract(epoch from m.created_at) * 1000)::float8 as oldest
            from ??.message_deliveries d join ??.messages m on m.id = d.message_id
            where d.state in ('queued', 'sending') order by d.id limit 1)`,
        )
        .join(' union all ');
      const { rows } = await knex.raw(
        sql,
        parts.flatMap((t) => [t.schema_name, t.schema_name, t.schema_name]),
      );
      const oldest = new Map<string, number>(rows.map((r: { schema: string; oldest: number }) => [r.schema, Number(r.oldest)]));
      for (const t of parts) this.known.set(t.schema_name, { version: versions.get(t.schema_name)!, oldest: oldest.get(t.schema_name) ?? null });
    }
    const now = Date.now();
    return present.map((t) => {
      const oldest = this.known.get(t.schema_name)?.oldest;
      return { tenant: t.slug, ageSeconds: oldest == null ? 0 : Math.max(0, (now - oldest) / 1000) };
    });
  }
}

/** Per schema with a message_deliveries table: its oid and the count of rows ever inserted, updated or deleted in it. */
async function outboxVersions(knex: Knex): Promise<Map<string, string>> {
  const { rows } = await knex.raw(
    `select n.nspname as schema,
            c.oid::text || ':' || (pg_stat_get_tuples_inserted(c.oid) + pg_stat_get_tuples_updated(c.oid) + pg_stat_get_tuples_deleted(c.oid))::text as version
       from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where c.relname = 'message_deliveries' and c.relkind in ('r', 'p')`,
  );
  return new Map((rows as { schema: string; version: string }[]).map((r) => [r.schema, r.version]));
}
