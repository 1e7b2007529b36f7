import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { RedisClient } from '../../platform/redis/redis-client';
import { ENV, LOGGER } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import { QUEUE_REDIS } from '../../platform/queue/job-definition';
import { TenantStore } from '../../platform/tenant-scope/tenant-store';
import { CLUSTERS, type Clusters } from '../../platform/clusters/clusters';
import { ClusterListener } from '../../platform/clusters/cluster-listener';
import type { ScanTenant } from './pending-scan';
import { RelayAgenda } from './relay-agenda';
import { RELAY_TIMING, type RelayTiming } from './relay-timing';
import { WakeableLoop } from './wakeable-loop';

/** What one look at a tenant found. */
export interface TenantLook {
  /** Rows handed to the queue. */
  moved: number;
  /** Rows that could not move now (batch limit, queue full): the tenant comes back after pollMs. */
  leftOver: boolean;
  /** Rows not finished yet (queued, sending, waiting for a retry): looked at again every reconcileMs. Undefined: not checked by this look (what was known stands). */
  inFlight?: boolean;
}

export interface TenantRelayOptions {
  /** For logs: "outbox relay", "webhook relay". */
  name: string;
  /** Sent with the tenant's schema as payload by its tenant migration's triggers when a row needs the relay. */
  channel: string;
  /** Redis set of tenant ids the API fills after commit (best effort; drained on every pass). */
  signalKey: string;
  /** Which of these tenants of one cluster have rows in flight (tenantsWithPending). */
  sweep(knex: Knex, tenants: readonly ScanTenant[]): Promise<number[]>;
  /** One look at a tenant: moves a batch to the queue, reconciles what was not done in time. */
  look(tenantId: number): Promise<TenantLook>;
}

export interface TenantRelayDeps {
  redis: RedisClient;
  logger: Logger;
  store: TenantStore;
  clusters: Clusters;
  timing: RelayTiming;
  /** OUTBOX_REDELIVER_AFTER_SECONDS: in-flight tenants are looked at at least this often. */
  redeliverAfterSeconds: number;
}

/**
 * The part both outbox relays share: it sleeps until told. A tenant's transaction that writes a
 * row needing the relay sends NOTIFY <channel> '<schema>' on commit (ClusterListener, one
 * connection per cluster); the API also adds the tenant to a Redis set after commit, drained on
 * every pass. Tenants with rows in flight are looked at again every reconcileMs (at most
 * OUTBOX_REDELIVER_AFTER_SECONDS) for redelivery; a tenant leaves that set when a look finds
 * nothing in flight. Every tenant is looked at (one statement per 200 tenants, pending-scan.ts)
 * only at start, when Redis or a listener comes back, and every sweepMs as a safety net. At rest
 * nothing runs but that sweep, whatever the number of tenants. While Redis is away no tenant is
 * looked at (a BullMQ queue opened then stays broken): the tenants wait, tried every pollMs.
 */
export class TenantRelay {
  private readonly loop: WakeableLoop;
  private readonly listener: ClusterListener;
  private readonly agenda: RelayAgenda;
  private stopped = true;

  constructor(
    private readonly deps: TenantRelayDeps,
    private readonly options: TenantRelayOptions,
  ) {
    const { timing } = deps;
    // a stream of signals (a NOTIFY per commit) is taken together, one pass per pollMs at most
    this.loop = new WakeableLoop(() => this.pass(), timing.pollMs);
    this.listener = new ClusterListener(deps.clusters, [options.channel]);
    this.agenda = new RelayAgenda(deps.store, deps.clusters, deps.logger, {
      name: options.name,
      pollMs: timing.pollMs,
      sweepMs: timing.sweepMs,
      reconcileMs: Math.min(timing.reconcileMs ?? timing.sweepMs, deps.redeliverAfterSeconds * 1000),
      serves: (id) => this.serves(id),
      sweep: (knex, tenants) => options.sweep(knex, tenants),
    });
  }

  private serves(tenantId: number): boolean {
    const only = this.deps.timing.onlyTenants;
    return !only || only.includes(tenantId);
  }

  private readonly onReady = () => this.sweepSoon();

  private sweepSoon(): void {
    this.agenda.requestSweep();
    this.loop.wake();
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.deps.redis.on('ready', this.onReady);
    await this.listener.start({
      notification: (_channel, schema) => {
        if (!schema) return;
        this.agenda.notified(schema);
        this.loop.wake();
      },
      // notifications sent while not listening are lost: look at every tenant once
      connected: () => this.sweepSoon(),
      lost: (cluster, why) =>
        this.deps.logger.warn({ err: why, cluster }, `${this.options.name}: lost its wake-up listener; reconnecting (then it sweeps every tenant)`),
    });
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.redis.off('ready', this.onReady);
    await this.listener.stop();
    await this.loop.stop();
  }

  /**
   * One pass, then how long to sleep: a backlog that moved goes on at once; left-overs and signals
   * that came during the pass after pollMs; else until the next look at in-flight tenants or sweep.
   */
  private async pass(): Promise<number> {
    let backlogMoved = false;
    try {
      backlogMoved = await this.tick();
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, `${this.options.name} tick failed`);
    }
    return backlogMoved ? 0 : this.agenda.sleepMs();
  }

  /** One pass; exposed for tests and tools. True when rows moved and some are left. */
  async tick(): Promise<boolean> {
    const { redis, logger } = this.deps;
    const due = await this.agenda.due();
    if (redis.status !== 'ready') {
      // Redis is away: nothing can be relayed now; 'ready' asks for a sweep.
      for (const id of due) this.agenda.looked(id, { leftOver: true });
      return false;
    }
    try {
      const popped = (await redis.spop(this.options.signalKey, 1000)) as string[] | null;
      for (const id of popped ?? []) if (this.serves(Number(id))) due.add(Number(id));
    } catch {
      // Redis went away meanwhile; 'ready' asks for a sweep.
    }
    let moved = 0;
    for (const tenantId of due) {
      if (this.stopped) break;
      try {
        const r = await this.options.look(tenantId);
        moved += r.moved;
        this.agenda.looked(tenantId, r);
      } catch (err) {
        this.agenda.looked(tenantId, { leftOver: true });
        logger.warn({ err: (err as Error).message, tenantId }, `${this.options.name} could not relay a tenant; will retry`);
      }
    }
    return moved > 0 && this.agenda.hasLeftOvers;
  }
}

/** Builds a relay's TenantRelay from the container's Redis, tenant list, clusters and RELAY_TIMING. */
@injectable()
export class TenantRelays {
  constructor(
    @inject(QUEUE_REDIS) private readonly redis: RedisClient,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(RELAY_TIMING) private readonly timing: RelayTiming,
    @inject(ENV) private readonly env: Env,
  ) {}

  create(options: TenantRelayOptions): TenantRelay {
    const { redis, logger, store, clusters, timing } = this;
    return new TenantRelay({ redis, logger, store, clusters, timing, redeliverAfterSeconds: this.env.OUTBOX_REDELIVER_AFTER_SECONDS }, options);
  }
}
