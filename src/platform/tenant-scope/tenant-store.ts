import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { PlatformDb } from './platform-db';
import { type Tenant, type TenantStatus } from './tenant';
import { TenantConfig } from '../config-items/tenant-config';
import { configItemDefinition, parseConfigValue } from '../config-items/config-item-registry';

interface TenantRow {
  id: number;
  slug: string;
  name: string;
  schema_name: string;
  status: TenantStatus;
  cluster: string;
  migration_failed_at: Date | null;
}

export interface ConfigChange {
  itemId: string;
  changedBy: string;
  changedAt: Date;
  secret: boolean;
  oldValue: unknown;
  newValue: unknown;
}

/** Reads and writes the platform schema's tenants, hosts and config items. */
@injectable()
export class TenantStore {
  constructor(@inject(PlatformDb) private readonly db: PlatformDb) {}

  async findIdByHost(host: string): Promise<number | null> {
    const row = await this.db.table('tenant_hosts').where({ host: host.toLowerCase() }).first('tenant_id');
    return row ? row.tenant_id : null;
  }

  async findIdBySlug(slug: string): Promise<number | null> {
    const row = await this.db.table('tenants').where({ slug }).first('id');
    return row ? row.id : null;
  }

  /** The tenant with its hosts and config items, in one statement (it runs on cache misses of requests). */
  async load(id: number): Promise<Tenant | null> {
    const row: LoadedRow | undefined = await this.loadQuery().where('t.id', id).first();
    return row ? tenantOf(row) : null;
  }

  /** Up to `limit` tenants with an id above `afterId`, in id order, each as load() makes it (start-up preload). */
  async loadPage(afterId: number, limit: number): Promise<Tenant[]> {
    const rows: LoadedRow[] = await this.loadQuery().where('t.id', '>', afterId).orderBy('t.id').limit(limit);
    return rows.map(tenantOf);
  }

  private loadQuery(): Knex.QueryBuilder {
    return this.db
      .table('tenants as t')
      .select(
        't.*',
        this.db.knex.raw('array(select h.host from ?? h where h.tenant_id = t.id order by h.host) as hosts', [this.db.ref('tenant_hosts')]),
        this.db.knex.raw(
          `coalesce((select json_agg(json_build_object('item_id', c.item_id, 'value', c.value)) from ?? c where c.tenant_id = t.id), '[]'::json) as items`,
          [this.db.ref('config_items')],
        ),
      );
  }

  /**
   * Some config items of many tenants in one statement (background scans that must not load every
   * tenant); items not asked for read as their defaults.
   */
  async configs(tenantIds: readonly number[], itemIds: readonly string[]): Promise<Map<number, TenantConfig>> {
    const rows: { tenant_id: number; item_id: string; value: unknown }[] = await this.db
      .table('config_items')
      .whereIn('tenant_id', [...tenantIds])
      .whereIn('item_id', [...itemIds])
      .select('tenant_id', 'item_id', 'value');
    const byTenant = new Map<number, { item_id: string; value: unknown }[]>(tenantIds.map((id) => [id, []]));
    for (const r of rows) byTenant.get(r.tenant_id)?.push(r);
    return new Map([...byTenant].map(([id, items]) => [id, configOf(items)]));
  }

  async list(): Promise<TenantRow[]> {
    return this.db.table('tenants').orderBy('slug').select('*');
  }

  async insert(trx: Knex.Transaction, t: { slug: string; name: string; schema: string; hosts: string[]; cluster?: string }): Promise<number> {
    const [row] = await trx
      .withSchema(PlatformDb.SCHEMA)
      .table('tenants')
      .insert({ slug: t.slug, name: t.name, schema_name: t.schema, ...(t.cluster ? { cluster: t.cluster } : {}) })
      .returning('id');
    for (const host of t.hosts) {
      await trx.withSchema(PlatformDb.SCHEMA).table('tenant_hosts').insert({ host: host.toLowerCase(), tenant_id: row.id });
    }
    return row.id;
  }

  /** Stores a validated value and its audit entry in one transaction. */
  async setConfigItem(
    tenantId: number,
    itemId: string,
    rawValue: unknown,
    changedBy: string,
    trx?: Knex.Transaction,
  ): Promise<{ oldValue: unknown; newValue: unknown; secret: boolean }> {
    const def = configItemDefinition(itemId);
    const value = parseConfigValue(itemId, rawValue);
    const run = async (tx: Knex.Transaction) => {
      const q = () => tx.withSchema(PlatformDb.SCHEMA);
      const old = await q().table('config_items').where({ tenant_id: tenantId, item_id: itemId }).forUpdate().first('value');
      await q()
        .table('config_items')
        .insert({ tenant_id: tenantId, item_id: itemId, value: JSON.stringify(value), updated_at: tx.fn.now() })
        .onConflict(['tenant_id', 'item_id'])
        .merge();
      await q()
        .table('config_item_changes')
        .insert({
          tenant_id: tenantId,
          item_id: itemId,
          changed_by: changedBy,
          secret: def!.secret,
          old_value: def!.secret ? null : JSON.stringify(old?.value ?? null),
          new_value: def!.secret ? null : JSON.stringify(value),
        });
      return { oldValue: old?.value ?? null, newValue: value, secret: def!.secret };
    };
    return trx ? run(trx) : this.db.knex.transaction(run);
  }

  /** The latest change of every item the tenant has changed, for "changed by X on Y" at a glance. */
  async lastConfigChanges(tenantId: number): Promise<Map<string, { changedBy: string; changedAt: Date }>> {
    const rows = await this.db
      .table('config_item_changes')
      .distinctOn('item_id')
      .where({ tenant_id: tenantId })
      .orderBy([{ column: 'item_id' }, { column: 'id', order: 'desc' }])
      .select('item_id', 'changed_by', 'changed_at');
    return new Map(rows.map((r: any) => [r.item_id, { changedBy: r.changed_by, changedAt: r.changed_at }]));
  }

  async configHistory(tenantId: number, itemId: string, limit = 100): Promise<ConfigChange[]> {
    const rows = await this.db.table('config_item_changes').where({ tenant_id: tenantId, item_id: itemId }).orderBy('id', 'desc').limit(limit);
    return rows.map((r: any) => ({
      itemId: r.item_id,
      changedBy: r.changed_by,
      changedAt: r.changed_at,
      secret: r.secret,
      oldValue: r.old_value,
      newValue: r.new_value,
    }));
  }
}

type LoadedRow = TenantRow & { hosts: string[]; items: { item_id: string; value: unknown }[] };

function tenantOf(row: LoadedRow): Tenant {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    schema: row.schema_name,
    cluster: row.cluster,
    status: row.status,
    hosts: row.hosts,
    config: configOf(row.items),
    migrationFailedAt: row.migration_failed_at,
  };
}

function configOf(items: readonly { item_id: string; value: unknown }[]): TenantConfig {
  const values = new Map<string, unknown>();
  for (const item of items) {
    // An item that no longer validates (registry tightened since) falls back to its default.
    if (!configItemDefinition(item.item_id)) continue;
    try {
      values.set(item.item_id, parseConfigValue(item.item_id, item.value));
    } catch {
      /* default applies */
    }
  }
  return new TenantConfig(values);
}
