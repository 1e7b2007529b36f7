import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../tokens';
import { CLUSTERS, type Clusters } from '../clusters/clusters';
import { ClusterListener } from '../clusters/cluster-listener';
import type { Env } from '../config/env';
import type { Tenant } from '../tenant-scope/tenant';

export const PRINCIPAL_CHANGED_CHANNEL = 'principal_changed';
/** Any write to the tables cached reads use (tenant migration 130); payload the schema. */
export const TENANT_DATA_CHANGED_CHANNEL = 'tenant_data_changed';
/** Entries kept at most; beyond it expired ones go, and if that is not enough, all of them. */
const MAX_ENTRIES = 100_000;

interface Entry {
  tenantId: number;
  /** The row a Principal is built from, as the loader gave it (the kernel does not know its columns). */
  row: unknown;
  expires: number;
}

/**
 * Account rows of logged-in persons, kept in this process so an authenticated request does not
 * read the person before doing its work. Only used while this process is listening to
 * PostgreSQL's `principal_changed` notifications (a trigger on persons sends them on commit, for
 * any write path): a change or deletion drops the entry at once, a lost listener connection
 * drops everything and bypasses the cache until it is back. A write request of a tenant also drops
 * that tenant's entries in this process before it answers, so the caller's next request here never
 * sees what it just changed as it was. The TTL is a safety net only. With several clusters
 * (TENANT_DATABASE_URLS) there is one listener per cluster, and all must be up.
 */
@injectable()
export class PrincipalCache {
  /** schema -> person id -> entry; the tenant id guards against a schema name reused by a new tenant. */
  private readonly entries = new Map<string, Map<number, Entry>>();
  private size = 0;
  /** One LISTEN connection per cluster. */
  private readonly listener: ClusterListener;
  private stopped = true;
  /** Bumped by every invalidation, so a row read before a change is never stored after it. */
  private generation = 0;
  /** Per schema, bumped by tenant_data_changed and by this process's write requests (forgetSchema). */
  private readonly dataVersions = new Map<string, number>();
  /** Bumped whenever the listener starts or is lost: every data version before it is void. */
  private epoch = 0;

  constructor(
    @inject(CLUSTERS) clusters: Clusters,
    @inject(ENV) private readonly env: Env,
    @inject(LOGGER) private readonly logger: Logger,
  ) {
    this.listener = new ClusterListener(clusters, [PRINCIPAL_CHANGED_CHANNEL, TENANT_DATA_CHANGED_CHANNEL]);
  }

  get enabled(): boolean {
    return this.listener.listening && this.env.PRINCIPAL_CACHE_SECONDS > 0;
  }

  async start(): Promise<void> {
    if (!this.stopped || this.env.PRINCIPAL_CACHE_SECONDS === 0) return;
    this.stopped = false;
    await this.listener.start({
      notification: (channel, payload) => {
        if (!payload) return;
        if (channel === PRINCIPAL_CHANGED_CHANNEL) this.forget(payload);
        else if (channel === TENANT_DATA_CHANGED_CHANNEL) this.bumpData(payload);
      },
      // what was announced while not listening is unknown
      connected: () => this.epoch++,
      lost: (cluster, why) => {
        this.dropAll();
        this.logger.warn({ err: why, cluster }, 'principal cache: lost the change listener; reading persons directly until it is back');
      },
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.dropAll();
    await this.listener.stop();
  }

  /** The cached row, or the one `load` reads (stored when nothing changed meanwhile). */
  async get<Row extends object>(tenant: Tenant, personId: number, load: () => Promise<Row | undefined>): Promise<Row | undefined> {
    if (!this.enabled) return load();
    const hit = this.entries.get(tenant.schema)?.get(personId);
    if (hit && hit.tenantId === tenant.id && hit.expires > Date.now()) return hit.row as Row;
    const generation = this.generation;
    const row = await load();
    if (row) this.put(tenant, personId, row, generation);
    return row;
  }

  /**
   * Keeps a row read before: only while the listener runs, and only when no change came in since
   * `generationBeforeRead` (currentGeneration, taken before the read). get() stores through it, and
   * so does the start-up's preload of recent persons (src/platform/lifecycle/recent-persons.ts).
   */
  put(tenant: Tenant, personId: number, row: unknown, generationBeforeRead: number): void {
    if (!this.enabled || generationBeforeRead !== this.generation) return;
    if (this.size >= MAX_ENTRIES) this.shrink();
    let bySchema = this.entries.get(tenant.schema);
    if (!bySchema) this.entries.set(tenant.schema, (bySchema = new Map()));
    if (!bySchema.has(personId)) this.size++;
    bySchema.set(personId, { tenantId: tenant.id, row, expires: Date.now() + this.env.PRINCIPAL_CACHE_SECONDS * 1000 });
  }

  get currentGeneration(): number {
    return this.generation;
  }

  /**
   * A token for "the tenant's data as this process knows it": it changes with every announced
   * write to the tables of tenant migration 130 (persons, roles, organisations, competences,
   * registrations, events, ...), with every write request of the tenant in this process, and when
   * the listener is lost; null while not listening (then nothing may be cached). TenantDataCache
   * stores it with each entry and compares.
   */
  dataVersion(schema: string): string | null {
    if (!this.enabled) return null;
    return `${this.epoch}:${this.dataVersions.get(schema) ?? 0}`;
  }

  private bumpData(schema: string): void {
    this.dataVersions.set(schema, (this.dataVersions.get(schema) ?? 0) + 1);
  }

  /** After a write request that changed no account (a route with keepsAccounts): only the tenant's cached reads go. */
  forgetData(schema: string): void {
    this.bumpData(schema);
  }

  /** Drops the entries of a tenant (after a write request, or its schema is gone). */
  forgetSchema(schema: string): void {
    this.bumpData(schema);
    this.generation++;
    this.size -= this.entries.get(schema)?.size ?? 0;
    this.entries.delete(schema);
  }

  /** Entries of persons who never came back would otherwise stay for the life of the process. */
  private shrink(): void {
    const now = Date.now();
    for (const [schema, bySchema] of this.entries) {
      for (const [id, entry] of bySchema) if (entry.expires <= now) bySchema.delete(id);
      if (bySchema.size === 0) this.entries.delete(schema);
    }
    this.size = [...this.entries.values()].reduce((n, m) => n + m.size, 0);
    if (this.size >= MAX_ENTRIES) this.dropAll();
  }

  private forget(payload: string): void {
    this.generation++;
    const at = payload.lastIndexOf(':');
    const schema = payload.slice(0, at);
    const id = Number(payload.slice(at + 1));
    if (this.entries.get(schema)?.delete(id)) this.size--;
  }

  private dropAll(): void {
    this.epoch++;
    this.dataVersions.clear();
    this.generation++;
    this.entries.clear();
    this.size = 0;
  }
}
