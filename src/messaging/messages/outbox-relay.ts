import { inject, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';
import type { RedisClient } from '../../platform/redis/redis-client';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { BackgroundWorker } from '../../platform/queue/worker-runtime';
import { ROOT_CONTAINER, QUEUE_REDIS } from '../../platform/queue/job-definition';
import type { MessageQueue } from './message-queues';
import { QueueRegistry } from '../../platform/queue/queue-registry';
import { RETRY_POLICY } from '../../platform/queue/job-worker';
import { TenantResolver } from '../../platform/tenancy/tenant-resolver';
import { TenantStore } from '../../platform/tenancy/tenant-store';
import { openTenantScope } from '../../platform/tenancy/request-scope';
import { UnitOfWork } from '../../platform/tenancy/unit-of-work';
import { TENANT_DB } from '../../platform/tokens';
import { CLUSTERS, type Clusters } from '../../platform/clusters/clusters';
import { pendingTenantsKey } from './outbox-signal';
import { deliverJobId, deliverMessageJob, type DeliverMessage } from './deliver-message.job';
import { expiredReason, maxAgeSeconds } from './delivery.service';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';
import { messageFailedData } from './message-failed-event';
import { OutboxWakeup } from './outbox-wakeup';
import { RelayAgenda } from './relay-agenda';
import { WakeableLoop } from './wakeable-loop';

export interface RelayTiming {
  /** Wait before trying again what could not move (queue full, Redis or database away), and between passes while signals keep coming. */
  pollMs: number;
  /** Safety sweep: every tenant is looked at this often (and at start, and when Redis or the wake-up listener comes back). */
  sweepMs: number;
  /** Tenants with deliveries in flight are looked at again this often (at most OUTBOX_REDELIVER_AFTER_SECONDS). */
  reconcileMs?: number;
  /** Bulk rows moved per tenant per tick: tenants take turns. */
  perTenantBatch: number;
  /** Bulk jobs allowed to wait in the queue; beyond that rows stay in the outbox. */
  maxQueueDepth: number;
  /** Tenants this relay serves (tests share one database); all when absent. */
  onlyTenants?: readonly number[];
}
export const RELAY_TIMING: InjectionToken<RelayTiming> = Symbol('RelayTiming');
export const DEFAULT_RELAY_TIMING: RelayTiming = { pollMs: 250, sweepMs: 3_600_000, reconcileMs: 120_000, perTenantBatch: 200, maxQueueDepth: 2_000 };
/** Password mail is never held back by the queue's depth, but moves in batches too. */
const PASSWORD_ROWS_PER_BATCH = 100;

interface OutboxRow {
  id: number;
  message_id: number;
  medium: 'email' | 'sms';
  kind: 'message' | 'password';
  /** Relayed before: its job may have vanished, given up or been cut off with its worker. */
  stale: boolean;
}

/**
 * Moves outbox rows (deliveries not yet relayed) to BullMQ. It sleeps until told: a tenant's
 * transaction that writes deliveries sends NOTIFY outbox_pending on commit (OutboxWakeup), and the
 * API adds the tenant to a Redis set after commit (drained on every pass). Tenants whose
 * deliveries are still queued or sending ("in flight") are looked at again every reconcileMs for
 * redelivery and expiry; a tenant leaves that set when a look finds nothing in flight. Every tenant
 * is looked at (one statement per 200 tenants, outbox-pending-scan.ts) only at start, when Redis or
 * the listener comes back, and every sweepMs as a safety net. At rest nothing runs but that sweep,
 * whatever the number of tenants.
 */
@injectable()
export class OutboxRelay implements BackgroundWorker {
  readonly name = 'outbox-relay';
  private readonly loop = new WakeableLoop(() => this.pass());
  private stopped = true;
  private readonly agenda: RelayAgenda;

  constructor(
    @inject(ROOT_CONTAINER) private readonly root: DependencyContainer,
    @inject(QUEUE_REDIS) private readonly redis: RedisClient,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(QueueRegistry) private readonly queues: QueueRegistry,
    @inject(TenantResolver) private readonly tenants: TenantResolver,
    @inject(TenantStore) store: TenantStore,
    @inject(RELAY_TIMING) private readonly timing: RelayTiming,
    @inject(ENV) private readonly env: Env,
    @inject(CLUSTERS) clusters: Clusters,
    @inject(OutboxWakeup) private readonly wakeup: OutboxWakeup,
  ) {
    this.agenda = new RelayAgenda(store, clusters, logger, {
      pollMs: timing.pollMs,
      sweepMs: timing.sweepMs,
      // in-flight tenants are looked at least this often, so stale deliveries are found without a signal
      reconcileMs: Math.min(timing.reconcileMs ?? timing.sweepMs, env.OUTBOX_REDELIVER_AFTER_SECONDS * 1000),
      serves: (id) => !timing.onlyTenants || timing.onlyTenants.includes(id),
    });
  }

  private readonly onReady = () => {
    this.agenda.requestSweep();
    this.loop.wake();
  };

  async start(): Promise<void> {
    this.stopped = false;
    this.redis.on('ready', this.onReady);
    await this.wakeup.start({
      pending: (schema) => {
        this.agenda.notified(schema);
        this.loop.wake();
      },
      connected: () => {
        this.agenda.requestSweep();
        this.loop.wake();
      },
    });
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.redis.off('ready', this.onReady);
    await this.wakeup.stop();
    await this.loop.stop();
    await this.queues.close();
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
      this.logger.warn({ err: (err as Error).message }, 'outbox relay tick failed');
    }
    return backlogMoved ? 0 : this.agenda.sleepMs();
  }

  /** One pass; exposed for tests and tools. True when rows moved and some are left. */
  async tick(): Promise<boolean> {
    const due = await this.agenda.due();
    if (this.redis.status !== 'ready') {
      // Redis is away: nothing can be relayed now (and a BullMQ queue opened now would stay broken);
      // the tenants wait, 'ready' asks for a sweep.
      for (const id of due) this.agenda.looked(id, { leftOver: true });
      return false;
    }
    const serves = (id: number) => !this.timing.onlyTenants || this.timing.onlyTenants.includes(id);
    try {
      const popped = (await this.redis.spop(pendingTenantsKey(this.queues.prefix), 1000)) as string[] | null;
      for (const id of popped ?? []) if (serves(Number(id))) due.add(Number(id));
    } catch {
      // Redis is away: nothing can be relayed now; the 'ready' event asks for a sweep.
    }
    let moved = 0;
    for (const tenantId of due) {
      if (this.stopped) break;
      try {
        const r = await this.relayTenant(tenantId);
        moved += r.moved;
        this.agenda.looked(tenantId, r);
      } catch (err) {
        this.agenda.looked(tenantId, { leftOver: true });
        this.logger.warn({ err: (err as Error).message, tenantId }, 'outbox relay could not relay a tenant; will retry');
      }
    }
    return moved > 0 && this.agenda.hasLeftOvers;
  }

  /**
   * Moves one batch of the tenant's outbox to the queues: password mail first, then bulk up
   * to the room left. One addBulk per queue and one UPDATE per batch, so a large send costs
   * a few round trips per batch, not per message. A crash between the two re-adds the jobs on
   * the next pass; the job id makes that a no-op.
   *
   * Reconciliation: a delivery relayed more than OUTBOX_REDELIVER_AFTER_SECONDS ago and still
   * queued or sending is relayed again. Its job may still be waiting or retrying (then the add
   * is a no-op), may have run out of BullMQ attempts or completed without sending (then it is
   * removed first, as BullMQ ignores an add whose id it still holds), or may be gone (Redis
   * flushed or failed over). Deliveries older than MESSAGE_DELIVERY_MAX_AGE_HOURS are failed
   * as expired here, so giving up depends on age, not on how many attempts BullMQ made.
   */
  private async relayTenant(tenantId: number): Promise<{ moved: number; leftOver: boolean; inFlight: boolean }> {
    const tenant = await this.tenants.byTenantId(tenantId);
    if (!tenant) return { moved: 0, leftOver: false, inFlight: false };
    const scope = openTenantScope(this.root, tenant);
    const db = scope.resolve(TENANT_DB);
    const redeliver = this.env.OUTBOX_REDELIVER_AFTER_SECONDS;
    const outbox = await this.expire(scope, redeliver);
    if (outbox === null) return { moved: 0, leftOver: false, inFlight: false }; // tenant schema not migrated yet
    const bulkRoom = Math.max(await this.bulkRoom(), 0);
    const rows: OutboxRow[] = await db
      .table('message_deliveries as d')
      .join('messages as m', 'm.id', 'd.message_id')
      .whereIn('d.state', ['queued', 'sending'])
      .where((q) => q.whereNull('d.relayed_at').orWhereRaw('d.relayed_at < now() - make_interval(secs => ?)', [redeliver]))
      .orderByRaw("(m.kind = 'password') desc, d.id")
      .limit(bulkRoom + PASSWORD_ROWS_PER_BATCH + 1)
      .select('d.id', 'd.message_id', 'd.medium', 'm.kind', db.raw('d.relayed_at is not null as stale'));
    const password = rows.filter((r) => r.kind === 'password').slice(0, PASSWORD_ROWS_PER_BATCH);
    const bulk = rows.filter((r) => r.kind !== 'password').slice(0, bulkRoom);
    const moving = [...password, ...bulk];
    if (moving.length > 0) {
      await this.enqueue('mail-priority', tenantId, password);
      await this.enqueue('messages', tenantId, bulk);
      await db.table('message_deliveries').whereIn('id', moving.map((r) => r.id)).update({ relayed_at: db.fn.now() });
      const again = moving.filter((r) => r.stale).length;
      if (again) this.logger.info({ tenantId, deliveries: again }, 'outbox relay: deliveries relayed again (not done in time)');
    }
    return { moved: moving.length, leftOver: rows.length > moving.length, inFlight: outbox.inFlight };
  }

  /**
   * Fails the tenant's undelivered rows past the maximum age, each with message.failed for the
   * webhooks in the same transaction, and tells whether any delivery was queued or sending before
   * (then the tenant is looked at again); null when the schema has no outbox yet.
   */
  private async expire(scope: DependencyContainer, redeliver: number): Promise<{ expired: number; inFlight: boolean } | null> {
    try {
      const events = scope.resolve(OUTBOUND_EVENTS);
      const result = await scope.resolve(UnitOfWork).run(async (tx) => {
        const trx = tx.db;
        const { rows } = await trx.raw(
          `with expired as (
             update ?? d set state = 'failed', last_error = ?, updated_at = now()
               from ?? m
              where m.id = d.message_id and d.state in ('queued', 'sending')
                and m.created_at < now() - make_interval(secs => ?)
                -- a send in progress finishes first
                and (d.state = 'queued' or d.updated_at < now() - make_interval(secs => ?))
             returning d.id)
           select coalesce((select array_agg(id) from expired), '{}') as ids,
                  exists (select 1 from ?? where state in ('queued', 'sending')) as in_flight`,
          [trx.ref('message_deliveries'), expiredReason(this.env, null), trx.ref('messages'), maxAgeSeconds(this.env), redeliver, trx.ref('message_deliveries')],
        );
        const { ids, in_flight: inFlight } = rows[0] as { ids: number[]; in_flight: boolean };
        for (const id of ids) await events.record(tx, 'message.failed', () => messageFailedData(trx, id));
        return { expired: ids.length, inFlight };
      });
      await events.committed();
      if (result.expired) this.logger.warn({ deliveries: result.expired }, 'outbox relay: deliveries expired undelivered');
      return result;
    } catch (err) {
      if ((err as { code?: string }).code === '42P01') return null;
      throw err;
    }
  }

  /** Removes the finished jobs of stale rows, so the add that follows is not ignored. */
  private async clearFinished(queue: MessageQueue, ids: string[]): Promise<void> {
    const q = this.queues.get(queue);
    await Promise.all(
      ids.map(async (id) => {
        const state = await q.getJobState(id);
        if (state === 'completed' || state === 'failed') await q.remove(id);
      }),
    );
  }

  private async enqueue(queue: MessageQueue, tenantId: number, rows: OutboxRow[]): Promise<void> {
    if (rows.length === 0) return;
    const retry = this.root.resolve(RETRY_POLICY);
    const jobs = rows.map((row) => ({ row, data: deliverMessageJob.schema.parse({ tenantId, messageId: row.message_id, deliveryId: row.id, medium: row.medium }) as DeliverMessage }));
    await this.clearFinished(queue, jobs.filter((j) => j.row.stale).map((j) => deliverJobId(j.data)));
    await this.queues.get(queue).addBulk(
      jobs.map(({ data }) => {
        return {
          name: deliverMessageJob.name,
          data,
          opts: {
            jobId: deliverJobId(data),
            attempts: retry.attempts,
            backoff: { type: 'capped-exponential' },
            removeOnComplete: { age: 7 * 86_400, count: 10_000 },
            removeOnFail: { age: 30 * 86_400 },
          },
        };
      }),
    );
  }

  /** How many bulk jobs this tenant may add now: its turn's batch, bounded by the queue's room. */
  private async bulkRoom(): Promise<number> {
    const counts = await this.queues.get('messages').getJobCounts('waiting', 'prioritized', 'delayed');
    const depth = (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
    return Math.min(this.timing.perTenantBatch, this.timing.maxQueueDepth - depth);
  }
}
