import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { LOGGER } from '../../platform/tokens';
import { CLUSTERS, type Clusters } from '../../platform/clusters/clusters';
import { TenantStore } from '../../platform/tenancy/tenant-store';
import { migratedSchemas } from '../outbox/pending-scan';

/** Tenants scanned per scrape (active ones, by slug); beyond that the gauge says nothing. */
export const OUTBOX_SCAN_TENANTS = 5000;
/** Tenants per UNION ALL query. */
const CHUNK = 100;
/** Scrapes within this window reuse the last scan. */
const CACHE_MS = 15_000;

export interface OutboxAgeReading {
  tenant: string;
  ageSeconds: number;
}

/**
 * Age of each tenant's oldest undelivered message (a delivery still queued or sending).
 * Per tenant a primary-key walk of the deliveries in id order that stops at the first
 * undelivered one (ids grow with time, so it is the oldest); CHUNK tenants per UNION ALL
 * query, at most OUTBOX_SCAN_TENANTS tenants, and the result is cached for CACHE_MS so
 * frequent scrapes cost nothing extra. Tenant schemas are named by the platform's own
 * tenants table, read-only; nothing here touches search_path.
 */
@injectable()
export class OutboxAge {
  private cached: { at: number; readings: Promise<OutboxAgeReading[]> } | null = null;

  constructor(
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  read(): Promise<OutboxAgeReading[]> {
    if (!this.cached || Date.now() - this.cached.at > CACHE_MS) {
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
    const out: OutboxAgeReading[] = [];
    // one query per CHUNK tenants of the same cluster
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
    const out: OutboxAgeReading[] = [];
    for (let i = 0; i < tenants.length; i += CHUNK) {
      const chunk = tenants.slice(i, i + CHUNK);
      // Schemas without the messages tables yet (not migrated) are left out by the catalog check.
      const migrated = await migratedSchemas(knex, chunk.map((t) => t.schema_name), 'message_deliveries');
      const parts = chunk.filter((t) => migrated.has(t.schema_name));
      if (!parts.length) continue;
      const sql = parts
        .map(
          () => `(select ?::text as tenant, extract(epoch from now() - m.created_at)::float8 as age
            from ??.message_deliveries d join ??.messages m on m.id = d.message_id
            where d.state in ('queued', 'sending') order by d.id limit 1)`,
        )
        .join(' union all ');
      const bindings = parts.flatMap((t) => [t.slug, t.schema_name, t.schema_name]);
      const { rows } = await knex.raw(sql, bindings);
      const ages = new Map<string, number>(rows.map((r: { tenant: string; age: number }) => [r.tenant, Math.max(0, Number(r.age))]));
      for (const t of parts) out.push({ tenant: t.slug, ageSeconds: ages.get(t.slug) ?? 0 });
    }
    return out;
  }
}
