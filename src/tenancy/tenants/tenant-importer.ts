import { CLOCK, type Clock } from '../../platform/time/tenant-clock';
import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import type { Knex } from 'knex';
import { LOGGER } from '../../platform/tokens';
import { TenantDb, schemaNameForSlug } from '../../platform/tenant-scope/tenant-db';
import { TenantStore } from '../../platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import { ConfigValueError, configItemDefinition } from '../../platform/config-items/config-item-registry';
import { CLUSTERS, type Clusters } from '../../platform/clusters/clusters';
import { platformAndTenant } from '../../platform/clusters/cluster-transaction';
import { TenantPlacement } from './placement/placement';
import { SchemaTakenError, SpareSchemas } from './placement/spare-schemas';
import { TenantImport } from './tenant-import.schema';
import { DataImport } from './tenant-data-import';
import { ImportError } from './tenant-import-error';

export { ImportError };

/** A taken slug or host is refused before anything is written (the admin service makes it a 409). */
export async function assertTenantFree(store: TenantStore, slug: string, hosts: string[]): Promise<void> {
  if (await store.findIdBySlug(slug)) throw new ImportError(`tenant "${slug}" already exists`);
  for (const host of hosts) {
    if (await store.findIdByHost(host)) throw new ImportError(`host "${host}" already belongs to a tenant`);
  }
}

/**
 * Inserts the tenant's row and hosts. Two creates of the same slug or host at once both pass
 * assertTenantFree; the second one's unique violation is the same refusal, not a database error.
 */
export async function insertFreeTenant(
  store: TenantStore,
  trx: Knex.Transaction,
  t: { slug: string; name: string; schema: string; hosts: string[]; cluster?: string },
): Promise<number> {
  try {
    return await store.insert(trx, t);
  } catch (err) {
    const e = err as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint?.startsWith('tenants_slug')) throw new ImportError(`tenant "${t.slug}" already exists`);
    if (e.code === '23505' && e.constraint?.startsWith('tenant_hosts')) throw new ImportError(`a host of "${t.slug}" already belongs to a tenant`);
    throw err;
  }
}

export interface ImportOptions {
  /** Override the document's slug / hosts (import a copy as another tenant). */
  slug?: string;
  hosts?: string[];
  /** The cluster to place the tenant on; by default the one with the fewest tenants. */
  cluster?: string;
  onProgress?: (message: string) => void;
}

/**
 * Creates a tenant from a tenant-import/1 document in one transaction: platform rows,
 * schema, migrations and data. Any bad reference rolls everything back and names the ref.
 */
@injectable()
export class TenantImporter {
  constructor(
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(TenantResolver) private readonly resolver: TenantResolver,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(TenantPlacement) private readonly placement: TenantPlacement,
    @inject(SpareSchemas) private readonly spares: SpareSchemas,
  ) {}

  async import(document: unknown, options: ImportOptions = {}): Promise<{ tenantId: number; slug: string; schema: string; cluster: string }> {
    const parsed = TenantImport.safeParse(document);
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      throw new ImportError(`invalid tenant-import/1 document at ${i.path.join('.') || '(root)'}: ${i.message}`);
    }
    const doc = parsed.data;
    const slug = options.slug ?? doc.tenant.slug;
    const hosts = (options.hosts ?? doc.tenant.hosts).map((h) => h.toLowerCase());
    const schema = schemaNameForSlug(slug);
    const progress = options.onProgress ?? ((m: string) => this.logger.info(m));
    await assertTenantFree(this.store, slug, hosts);
    const cluster = await this.placement.choose(options.cluster);

    let spare = false;
    let data: DataImport;
    const tenantId = await platformAndTenant(this.clusters, cluster, async (trx, tenantTrx) => {
      const id = await insertFreeTenant(this.store, trx, { slug, name: doc.tenant.name, schema, hosts, cluster });
      for (const [itemId, value] of Object.entries(doc.config)) {
        if (!configItemDefinition(itemId)) throw new ImportError(`config: unknown config item "${itemId}"`);
        try {
          await this.store.setConfigItem(id, itemId, value, 'import', trx);
        } catch (err) {
          if (err instanceof ConfigValueError) throw new ImportError(`config: ${err.message}`);
          throw err;
        }
      }
      try {
        spare = await this.spares.provide(tenantTrx, schema);
      } catch (err) {
        if (err instanceof SchemaTakenError) throw new ImportError(`tenant "${slug}": ${err.message}`);
        throw err;
      }
      progress(`${slug}: schema ${schema} created on cluster ${cluster}${spare ? ' (from a spare)' : ''}`);
      data = new DataImport(new TenantDb(tenantTrx, schema), doc, progress, slug, this.clock.now());
      await data.run();
      return id;
    });
    await analyzeLargeTables(this.clusters.admin(cluster), schema, data!.bulkRows, progress);
    await this.resolver.publishChange(tenantId);
    if (spare) this.spares.topUpSoon(cluster);
    return { tenantId, slug, schema, cluster };
  }
}

/** Tables that received at least this many rows are analyzed right after the import. */
const ANALYZE_FROM_ROWS = 1000;

/**
 * A large import is used at once (a customer's first sync, the benchmark), before autovacuum
 * (autovacuum_naptime, 5 min in the embedded PostgreSQL) has gathered statistics: without them the
 * planner guesses, and the set-based competence level over 10,000 persons took 2 s instead of
 * 0.5 s. Small tables are left to autovacuum: their plans do not depend on it, and bulk
 * provisioning of thousands of small tenants must not pay an ANALYZE each.
 */
async function analyzeLargeTables(admin: Knex, schema: string, rows: ReadonlyMap<string, number>, progress: (m: string) => void): Promise<void> {
  const large = [...rows].filter(([, n]) => n >= ANALYZE_FROM_ROWS).map(([table]) => table);
  try {
    for (const table of large) await admin.raw('analyze ??.??', [schema, table]);
  } catch (err) {
    // the tenant is committed: a failed ANALYZE must not report the import as failed; autovacuum catches up
    progress(`${schema}: statistics not gathered (${(err as Error).message}); autovacuum will`);
    return;
  }
  if (large.length) progress(`${schema}: statistics gathered for ${large.join(', ')}`);
}
