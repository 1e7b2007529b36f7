import { inject, injectable, injectAll } from 'tsyringe';
import type { Knex } from 'knex';
import { ENV, KNEX } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import { NEW_TENANT_CONFIG } from '../../platform/config-items/swt-config-items';
import { ApiError } from '../../platform/errors/api-error';
import { PlatformDb } from '../../platform/tenant-scope/platform-db';
import { TenantStore } from '../../platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import type { Tenant, TenantStatus } from '../../platform/tenant-scope/tenant';
import { schemaVersion } from '../../platform/migrations/migration-runner';
import { migrateAll, type MigrateAllReport } from '../../platform/migrations/migrate-all';
import type { Readable, Writable } from 'node:stream';
import { ImportError, TenantImporter, type ImportOptions } from './tenant-importer';
import { ImportTooLargeError } from './tenant-import-error';
import { ArchiveExporter } from './archive/archive-exporter';
import { ArchiveImporter } from './archive/archive-importer';
import type { ArchiveEnd } from './archive/tenant-archive.format';
import { TenantExporter, type ExportOptions } from './tenant-exporter';
import { HostName, TenantSlug, type TenantImport } from './tenant-import.schema';
import { TENANT_PURGERS, type TenantPurger } from '../../platform/tenant-scope/tenant-purgers';
import { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { recordSecurityEvent } from '../../platform/audit/security-audit';
import { CLUSTERS, type Clusters } from '../../platform/clusters/clusters';
import { platformAndTenant } from '../../platform/clusters/cluster-transaction';
import { MoveLeftovers } from './placement/move-leftovers';

/** Where an operator action came from, for the tenant's security event log. */
export interface OperatorOrigin {
  via: 'cli' | 'http';
  ip?: string | null;
}

export interface TenantSummary {
  slug: string;
  name: string;
  status: TenantStatus;
  hosts: string[];
  schema: string;
  /** The PostgreSQL cluster the schema lives on (main: DATABASE_URL). */
  cluster: string;
  schema_version: string | null;
  schema_size_bytes: number;
  created_at: Date;
  /** Set while the last migration of the tenant failed (it answers 503 meanwhile). */
  migration_failed_at: Date | null;
}

export interface DeleteReport {
  slug: string;
  purged: string[];
}

type Progress = (line: string) => void;

export interface ImportOverrides {
  slug?: string;
  hosts?: string[];
  cluster?: string;
  onProgress?: Progress;
}

function checked<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } } }, param: string, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw ApiError.malformed(param, r.error.issues[0].message);
  return r.data;
}

/**
 * Operator actions on whole tenants, shared by the CLI (src/cli/tenant.ts) and the
 * /platform HTTP API. Errors are ApiErrors so both can show the same message.
 */
@injectable()
export class TenantAdminService {
  private origin: OperatorOrigin = { via: 'cli' };

  constructor(
    @inject(KNEX) private readonly knex: Knex,
    @inject(ENV) private readonly env: Env,
    @inject(PlatformDb) private readonly platform: PlatformDb,
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(TenantResolver) private readonly resolver: TenantResolver,
    @inject(TenantImporter) private readonly importer: TenantImporter,
    @inject(TenantExporter) private readonly exporter: TenantExporter,
    @inject(ArchiveExporter) private readonly archiveExporter: ArchiveExporter,
    @inject(ArchiveImporter) private readonly archiveImporter: ArchiveImporter,
    @injectAll(TENANT_PURGERS) private readonly purgers: TenantPurger[],
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(MoveLeftovers) private readonly moveLeftovers: MoveLeftovers,
  ) {}

  /** The /platform API says so; the CLI is the default. */
  by(origin: OperatorOrigin): this {
    this.origin = origin;
    return this;
  }

  /** operator.* entry in the tenant's own log; in `trx` when the action changes something. */
  private async recordOperator(tenant: Pick<Tenant, 'schema' | 'cluster'>, action: string, details: Record<string, unknown>, trx?: Knex | Knex.Transaction): Promise<void> {
    await recordSecurityEvent(new TenantDb(trx ?? this.clusters.admin(tenant.cluster), tenant.schema), {
      type: `operator.${action}`,
      actor: 'operator',
      ip: this.origin.ip ?? null,
      details: { ...details, via: this.origin.via },
    });
  }

  async list(): Promise<TenantSummary[]> {
    const rows = await this.store.list();
    // A tenant deleted between the list and its summary is simply no longer listed (was a 500).
    const summaries = await Promise.all(rows.map((r) => this.summary(r.id).catch((e: unknown) => {
        if (e instanceof ApiError && e.errorcode === 404) return null;
        throw e;
      })));
    return summaries.filter((x): x is TenantSummary => x !== null);
  }

  async get(slug: string): Promise<TenantSummary> {
    return this.summary((await this.tenant(slug)).id);
  }

  /** An empty tenant with its schema migrated: the import of a document without data. */
  async create(input: { slug: string; name: string; hosts: string[]; cluster?: string }, onProgress?: Progress): Promise<TenantSummary> {
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (!name) throw ApiError.missing('name');
    if (!input.hosts?.length) throw ApiError.missing('hosts');
    return this.import({ format: 'tenant-import/1', tenant: { slug: input.slug, name, hosts: input.hosts }, config: { ...NEW_TENANT_CONFIG } }, { onProgress, cluster: input.cluster });
  }

  async import(document: unknown, options: ImportOverrides = {}): Promise<TenantSummary> {
    return this.importing(options, (o) => this.importer.import(document, o), true);
  }

  /** A tenant-archive/1 stream (gzip'd tar), as written by exportArchive. */
  async importArchive(input: Readable, options: ImportOverrides = {}): Promise<TenantSummary> {
    // A restore gives back the tenant exactly, its security event log included: it adds no entry
    // of its own (a second export equals the first); the CLI and HTTP answers report it instead.
    return this.importing(options, (o) => this.archiveImporter.import(input, o), false);
  }

  async export(slug: string, options: ExportOptions = {}): Promise<TenantImport> {
    const tenant = await this.tenant(slug);
    const document = await this.exporter.export(tenant, options);
    await this.recordOperator(tenant, 'exported', { config_values: options.secrets !== false ? 'all' : 'without write-only items' });
    return document;
  }

  /**
   * Everything of the tenant as a tenant-archive/1 stream. Secrets and password hashes are in
   * by default: a backup without them cannot restore logins or SWT; the flags leave them out.
   */
  async exportArchive(slug: string, out: Writable, options: { secrets?: boolean; passwordHashes?: boolean; onProgress?: Progress } = {}): Promise<ArchiveEnd> {
    const tenant = await this.tenant(slug);
    const secrets = options.secrets ?? true;
    const passwordHashes = options.passwordHashes ?? true;
    const end = await this.archiveExporter.export(tenant, out, { secrets, passwordHashes, onProgress: options.onProgress });
    // After the snapshot, so an archive never holds the record of its own making.
    await this.recordOperator(tenant, 'exported', { format: 'tenant-archive/1', config_values: secrets ? 'all' : 'without write-only items', logins_restorable: passwordHashes });
    return end;
  }

  async addHost(slug: string, host: string): Promise<TenantSummary> {
    const tenant = await this.tenant(slug);
    const name = checked(HostName, 'host', host).toLowerCase();
    const owner = await this.store.findIdByHost(name);
    if (owner === tenant.id) return this.summary(tenant.id);
    if (owner !== null) throw new ApiError(409, `host ${name} already belongs to another tenant`);
    await platformAndTenant(this.clusters, tenant.cluster, async (trx, tenantTrx) => {
      await trx.withSchema(PlatformDb.SCHEMA).table('tenant_hosts').insert({ host: name, tenant_id: tenant.id });
      await this.recordOperator(tenant, 'host_added', { host: name }, tenantTrx);
    });
    await this.resolver.publishChange(tenant.id);
    return this.summary(tenant.id);
  }

  async removeHost(slug: string, host: string): Promise<TenantSummary> {
    const tenant = await this.tenant(slug);
    const name = host.toLowerCase();
    if (!tenant.hosts.includes(name)) throw new ApiError(404, `host ${name} is not a host of tenant ${slug}`);
    // A tenant without a host cannot be reached at all; suspend or delete it instead.
    if (tenant.hosts.length === 1) throw new ApiError(409, `host ${name} is the last host of tenant ${slug}; add another first`);
    await platformAndTenant(this.clusters, tenant.cluster, async (trx, tenantTrx) => {
      await trx.withSchema(PlatformDb.SCHEMA).table('tenant_hosts').where({ host: name, tenant_id: tenant.id }).delete();
      await this.recordOperator(tenant, 'host_removed', { host: name }, tenantTrx);
    });
    await this.resolver.publishChange(tenant.id);
    return this.summary(tenant.id);
  }

  suspend(slug: string): Promise<TenantSummary> {
    return this.setStatus(slug, 'suspended');
  }

  resume(slug: string): Promise<TenantSummary> {
    return this.setStatus(slug, 'active');
  }

  /** Drops the schema, the platform rows, then everything the purgers know of (Redis keys, queued jobs). */
  async delete(slug: string, onProgress: Progress = () => {}): Promise<DeleteReport> {
    const tenant = await this.tenant(slug);
    // clusters its moves touched (their rows go with the tenant's): an old or partial copy may be left there
    const moved = await this.platform.table('tenant_moves').where({ tenant_id: tenant.id }).select('from_cluster', 'to_cluster');
    await platformAndTenant(this.clusters, tenant.cluster, async (trx, tenantTrx) => {
      await tenantTrx.raw('drop schema if exists ?? cascade', [tenant.schema]);
      await trx.withSchema(PlatformDb.SCHEMA).table('tenants').where({ id: tenant.id }).delete();
    });
    onProgress(`${slug}: schema ${tenant.schema} and platform rows dropped`);
    const copies = await this.moveLeftovers.purgeTenant(tenant.schema, tenant.cluster ?? 'main', moved.flatMap((m: { from_cluster: string; to_cluster: string }) => [m.from_cluster, m.to_cluster]));
    for (const line of copies) onProgress(`${slug}: move leftovers: ${line}`);
    await this.resolver.publishChange(tenant.id);
    const purged: string[] = [];
    for (const purger of this.purgers) {
      const line = await purger.purge({ id: tenant.id, slug, schema: tenant.schema });
      purged.push(`${purger.name}: ${line}`);
      onProgress(`${slug}: ${purger.name}: ${line}`);
    }
    return { slug, purged: copies.length ? [`move-leftovers: ${copies.join('; ')}`, ...purged] : purged };
  }

  migrateAll(onProgress?: Progress): Promise<MigrateAllReport> {
    return migrateAll(this.knex, { concurrency: this.env.MIGRATE_CONCURRENCY, onProgress, onTenantStateChange: (id) => this.resolver.publishChange(id), clusters: this.clusters });
  }

  private async importing(
    options: ImportOverrides,
    run: (o: ImportOptions) => Promise<{ tenantId: number; schema: string }>,
    audited: boolean,
  ): Promise<TenantSummary> {
    if (options.slug !== undefined) checked(TenantSlug, 'slug', options.slug);
    for (const h of options.hosts ?? []) checked(HostName, 'host', h);
    try {
      const r = await run({ slug: options.slug, hosts: options.hosts?.length ? options.hosts : undefined, cluster: options.cluster, onProgress: options.onProgress ?? (() => {}) });
      const placed = await this.store.load(r.tenantId);
      if (audited && placed) await this.recordOperator(placed, 'imported', { slug: options.slug ?? null, cluster: placed.cluster });
      return this.summary(r.tenantId);
    } catch (err) {
      if (err instanceof ImportTooLargeError) throw new ApiError(413, err.message);
      if (err instanceof ImportError) {
        throw new ApiError(/already (exists|belongs)/.test(err.message) ? 409 : 420, err.message);
      }
      throw err;
    }
  }

  private async setStatus(slug: string, status: TenantStatus): Promise<TenantSummary> {
    const tenant = await this.tenant(slug);
    await platformAndTenant(this.clusters, tenant.cluster, async (trx, tenantTrx) => {
      await trx.withSchema(PlatformDb.SCHEMA).table('tenants').where({ id: tenant.id }).update({ status, updated_at: this.knex.fn.now() });
      await this.recordOperator(tenant, status === 'active' ? 'resumed' : 'suspended', {}, tenantTrx);
    });
    await this.resolver.publishChange(tenant.id);
    return this.summary(tenant.id);
  }

  private async tenant(slug: string): Promise<Tenant> {
    const id = typeof slug === 'string' ? await this.store.findIdBySlug(slug) : null;
    const tenant = id === null ? null : await this.store.load(id);
    if (!tenant) throw new ApiError(404, `tenant ${slug} not found`);
    return tenant;
  }

  private async summary(id: number): Promise<TenantSummary> {
    const tenant = await this.store.load(id);
    if (!tenant) throw new ApiError(404, `tenant ${id} not found`);
    const row = await this.platform.table('tenants').where({ id }).first('created_at');
    if (!row) throw new ApiError(404, `tenant ${id} not found`);
    const cluster = tenant.cluster ?? 'main';
    // placed on a cluster this process does not know (its TENANT_DATABASE_URLS lacks it): listed without size and version
    if (!this.clusters.has(cluster)) return { ...this.describe(tenant, row.created_at), cluster, schema_version: null, schema_size_bytes: 0 };
    const db = this.clusters.admin(cluster);
    const size = await db.raw(
      `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as bytes
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ? and c.relkind in ('r', 'm')`,
      [tenant.schema],
    );
    return { ...this.describe(tenant, row.created_at), cluster, schema_version: await schemaVersion(db, tenant.schema), schema_size_bytes: Number(size.rows[0].bytes) };
  }

  private describe(tenant: Tenant, createdAt: Date) {
    return { slug: tenant.slug, name: tenant.name, status: tenant.status, hosts: tenant.hosts, schema: tenant.schema, created_at: createdAt, migration_failed_at: tenant.migrationFailedAt ?? null };
  }
}
