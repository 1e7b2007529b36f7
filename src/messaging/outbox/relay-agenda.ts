import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { TenantStore } from '../../platform/tenant-scope/tenant-store';
import type { Clusters } from '../../platform/clusters/clusters';
import type { ScanTenant } from './pending-scan';

export interface AgendaTiming {
  pollMs: number;
  sweepMs: number;
  /** How often in-flight tenants are looked at again. */
  reconcileMs: number;
  serves(tenantId: number): boolean;
}

export interface AgendaOptions extends AgendaTiming {
  /** For logs: "outbox relay", "webhook relay". */
  name: string;
  /** The sweep on one cluster: which of these tenants need a look (tenantsWithPending, in one statement per 200 tenants). */
  sweep(knex: Knex, tenants: readonly ScanTenant[]): Promise<number[]>;
}

/**
 * Which tenants a relay looks at on its next pass, and when that pass is due:
 * - tenants named by a notification (by schema; the tenant list is read again for one not known yet),
 * - tenants left over from the last pass (batch limit, queue full, an error),
 * - tenants with rows in flight (not finished when last looked at), every reconcileMs,
 * - every tenant the sweep names (rows in flight in the database), at start, when asked (Redis
 *   or the listener came back) and every sweepMs.
 * With nothing in flight and no signal the next pass is the next sweep.
 */
export class RelayAgenda {
  private lastSweep = 0;
  private sweepRequested = true;
  private lastReconcile = 0;
  private readonly carry = new Set<number>();
  private readonly inflight = new Set<number>();
  private readonly woken = new Set<string>();
  private readonly schemaIds = new Map<string, number>();

  constructor(
    private readonly store: TenantStore,
    private readonly clusters: Clusters,
    private readonly logger: Logger,
    private readonly options: AgendaOptions,
  ) {}

  notified(schema: string): void {
    this.woken.add(schema);
  }

  requestSweep(): void {
    this.sweepRequested = true;
  }

  /** The tenants due now (the signals, left-overs and looks that were waiting are taken). */
  async due(): Promise<Set<number>> {
    const due = new Set<number>(this.carry);
    this.carry.clear();
    for (const id of await this.wokenTenants()) if (this.options.serves(id)) due.add(id);
    if (this.sweepRequested || Date.now() - this.lastSweep >= this.options.sweepMs) {
      this.sweepRequested = false;
      this.lastSweep = Date.now();
      try {
        for (const id of await this.sweep()) due.add(id);
      } catch (err) {
        // tried again after pollMs; the tenants already due still go now
        this.sweepRequested = true;
        this.logger.warn({ err: (err as Error).message }, `${this.options.name} sweep failed; trying again`);
      }
    }
    if (this.inflight.size > 0 && Date.now() - this.lastReconcile >= this.options.reconcileMs) {
      this.lastReconcile = Date.now();
      for (const id of this.inflight) due.add(id);
    }
    return due;
  }

  /** What a look at a tenant found; `inFlight` undefined when the look failed. */
  looked(tenantId: number, r: { leftOver: boolean; inFlight?: boolean }): void {
    if (r.leftOver) this.carry.add(tenantId);
    if (r.inFlight === true) this.inflight.add(tenantId);
    else if (r.inFlight === false) this.inflight.delete(tenantId);
  }

  /** True when a pass left rows over. */
  get hasLeftOvers(): boolean {
    return this.carry.size > 0;
  }

  /** Milliseconds until the next pass is due (a backlog that moved goes on at once: the caller's business). */
  sleepMs(): number {
    if (this.carry.size > 0 || this.woken.size > 0 || this.sweepRequested) return this.options.pollMs;
    let next = this.lastSweep + this.options.sweepMs;
    if (this.inflight.size > 0) next = Math.min(next, this.lastReconcile + this.options.reconcileMs);
    return next - Date.now();
  }

  private async wokenTenants(): Promise<number[]> {
    const schemas = [...this.woken];
    this.woken.clear();
    if (schemas.some((s) => !this.schemaIds.has(s))) {
      try {
        for (const t of await this.store.list()) this.schemaIds.set(t.schema_name, t.id);
      } catch (err) {
        for (const s of schemas) if (!this.schemaIds.has(s)) this.woken.add(s); // next pass
        this.logger.warn({ err: (err as Error).message }, `${this.options.name} could not read the tenant list; trying again`);
      }
    }
    return schemas.map((s) => this.schemaIds.get(s)).filter((id): id is number => id !== undefined);
  }

  /** Active tenants served here that the sweep names, asked of each tenant's cluster. */
  private async sweep(): Promise<number[]> {
    const tenants = (await this.store.list()).filter((t) => t.status === 'active' && this.options.serves(t.id));
    const byCluster = new Map<string, ScanTenant[]>();
    for (const t of tenants) {
      this.schemaIds.set(t.schema_name, t.id);
      const cluster = t.cluster ?? 'main';
      if (!this.clusters.has(cluster)) continue; // a cluster no longer declared: its tenants cannot be served here anyway
      if (!byCluster.has(cluster)) byCluster.set(cluster, []);
      byCluster.get(cluster)!.push({ id: t.id, schema: t.schema_name });
    }
    const found: number[] = [];
    for (const [cluster, list] of byCluster) found.push(...(await this.options.sweep(this.clusters.admin(cluster), list)));
    return found;
  }
}
