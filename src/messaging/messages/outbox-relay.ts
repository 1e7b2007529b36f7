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
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import { pendingTenantsKey } from './outbox-signal';
import { deliverJobId, deliverMessageJob, type DeliverMessage } from './deliver-message.job';
import { expiredReason, maxAgeSeconds } from './delivery.service';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';
import { messageFailedData } from './message-failed-event';

export interface RelayTiming {
  pollMs: number;
  sweepMs: number;
  /** Bulk rows moved per tenant per tick: tenants take turns. */
  perTenantBatch: number;
  /** Bulk jobs allowed to wait in the queue; beyond that rows stay in the outbox. */
  maxQueueDepth: number;
  /** Tenants this relay serves (tests share one database); all when absent. */
  onlyTenants?: readonly number[];
}
export const RELAY_TIMING: InjectionToken<RelayTiming> = Symbol('RelayTiming');
export const DEFAULT_RELAY_TIMING: RelayTiming = { pollMs: 250, sweepMs: 120_000, perTenantBatch: 200, maxQueueDepth: 2_000 };
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
 * Moves outbox rows (deliveries not yet relayed) to BullMQ. It learns which tenants have
 * rows from a Redis set filled by the API after commit, and sweeps every tenant at start,
 * every sweepMs and whenever Redis comes back, to find rows whose signal was lost.
 */
@injectable()
export class OutboxRelay implements BackgroundWorker {
  readonly name = 'outbox-relay';
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private lastSweep = 0;
  private sweepRequested = true;
  /** Tenants with rows left over (Redis failed, batch limit, queue full). */
  private carry = new Set<number>();

  constructor(
    @inject(ROOT_CONTAINER) private readonly root: DependencyContainer,
    @inject(QUEUE_REDIS) private readonly redis: RedisClient,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(QueueRegistry) private readonly queues: QueueRegistry,
    @inject(TenantResolver) private readonly tenants: TenantResolver,
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(RELAY_TIMING) private readonly timing: RelayTiming,
    @inject(ENV) private readonly env: Env,
  ) {}

  /** Sweeps come at least this often, so stale deliveries are found without a signal. */
  private get sweepMs(): number {
    return Math.min(this.timing.sweepMs, this.env.OUTBOX_REDELIVER_AFTER_SECONDS * 1000);
  }

  private readonly onReady = () => {
    this.sweepRequested = true;
  };

  async start(): Promise<void> {
    this.stopped = false;
    this.redis.on('ready', this.onReady);
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.redis.off('ready', this.onReady);
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.queues.close();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      let again = false;
      this.running = this.tick()
        .then((backlog) => {
          again = backlog;
        })
        .catch((err) => this.logger.warn({ err: (err as Error).message }, 'outbox relay tick failed'))
        // A backlog that moved goes on at once; otherwise wait for signals (or queue room).
        .finally(() => this.schedule(again ? 0 : this.timing.pollMs));
    }, ms);
  }

  private serves(tenantId: number): boolean {
    return !this.timing.onlyTenants || this.timing.onlyTenants.includes(tenantId);
  }

  /** One pass; exposed for tests and tools. True when rows moved and some are left. */
  async tick(): Promise<boolean> {
    const due = new Set<number>(this.carry);
    this.carry.clear();
    if (this.sweepRequested || Date.now() - this.lastSweep >= this.sweepMs) {
      this.sweepRequested = false;
      this.lastSweep = Date.now();
      for (const t of await this.store.list()) if (t.status === 'active' && this.serves(t.id)) due.add(t.id);
    }
    try {
      const popped = (await this.redis.spop(pendingTenantsKey(this.queues.prefix), 1000)) as string[] | null;
      for (const id of popped ?? []) if (this.serves(Number(id))) due.add(Number(id));
    } catch {
      // Redis is away: nothing can be relayed now; the 'ready' event asks for a sweep.
    }
    let moved = 0;
    for (const tenantId of due) {
      if (this.stopped) break;
      try {
        const r = await this.relayTenant(tenantId);
        moved += r.moved;
        if (r.leftOver) this.carry.add(tenantId);
      } catch (err) {
        this.carry.add(tenantId);
        this.logger.warn({ err: (err as Error).message, tenantId }, 'outbox relay could not relay a tenant; will retry');
      }
    }
    return moved > 0 && this.carry.size > 0;
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
  private async relayTenant(tenantId: number): Promise<{ moved: number; leftOver: boolean }> {
    const tenant = await this.tenants.byTenantId(tenantId);
    if (!tenant) return { moved: 0, leftOver: false };
    const scope = openTenantScope(this.root, tenant);
    const db = scope.resolve(TENANT_DB);
    const redeliver = this.env.OUTBOX_REDELIVER_AFTER_SECONDS;
    const expired = await this.expire(scope, redeliver);
    if (expired === null) return { moved: 0, leftOver: false }; // tenant schema not migrated yet
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
    return { moved: moving.length, leftOver: rows.length > moving.length };
  }

  /**
   * Fails the tenant's undelivered rows past the maximum age, each with message.failed for the
   * webhooks in the same transaction; null when the schema has no outbox yet.
   */
  private async expire(scope: DependencyContainer, redeliver: number): Promise<number | null> {
    try {
      const events = scope.resolve(OUTBOUND_EVENTS);
      const rowCount = await scope.resolve(UnitOfWork).run(async (tx) => {
        const trx = tx.db;
        const { rows } = await trx.raw(
          `update ?? d set state = 'failed', last_error = ?, updated_at = now()
             from ?? m
            where m.id = d.message_id and d.state in ('queued', 'sending')
              and m.created_at < now() - make_interval(secs => ?)
              -- a send in progress finishes first
              and (d.state = 'queued' or d.updated_at < now() - make_interval(secs => ?))
          returning d.id`,
          [trx.ref('message_deliveries'), expiredReason(this.env, null), trx.ref('messages'), maxAgeSeconds(this.env), redeliver],
        );
        for (const r of rows as { id: number }[]) await events.record(tx, 'message.failed', () => messageFailedData(trx, r.id));
        return rows.length as number;
      });
      await events.committed();
      if (rowCount) this.logger.warn({ deliveries: rowCount }, 'outbox relay: deliveries expired undelivered');
      return rowCount;
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
