import { inject, injectable, type DependencyContainer } from 'tsyringe';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { BackgroundWorker } from '../../platform/queue/worker-runtime';
import { ROOT_CONTAINER, type JobTrace } from '../../platform/queue/job-definition';
import { traceIdOf } from '../../platform/tracing/tracing';
import type { MessageQueue } from '../messages/message-queues';
import { QueueRegistry } from '../../platform/queue/queue-registry';
import { RETRY_POLICY } from '../../platform/queue/job-worker';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../platform/tenant-scope/request-scope';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { OUTBOX_PENDING_CHANNEL, pendingTenantsKey } from './outbox-signal';
import {
  DELIVER_BATCH_JOB, DELIVER_MESSAGE_JOB, DELIVERIES_PER_JOB, DeliverBatch, DeliverMessage, deliverBatchJobId, deliverJobId,
} from '../messages/delivery-jobs';
import { expiredReason, maxAgeSeconds } from '../messages/delivery.service';
import type { FailedDeliveryEvent } from '../messages/message-failed-event';
import { RELAY_TIMING, type RelayTiming } from './relay-timing';
import { TenantRelays, type TenantRelay, type TenantLook } from './tenant-relay';
import { tenantsWithPending, type OutboxTable } from './pending-scan';

/** What the relay's sweep probes: the partial index message_deliveries_pending (migration 050). */
export const MESSAGE_OUTBOX: OutboxTable = { table: 'message_deliveries', pendingStates: ['queued', 'sending'] };
/** Password mail is never held back by the queue's depth, but moves in batches too. */
const PASSWORD_ROWS_PER_BATCH = 100;

interface OutboxRow {
  id: number;
  message_id: number;
  medium: 'email' | 'sms';
  kind: 'message' | 'password';
  /** Relayed before: its job may have vanished, given up or been cut off with its worker. */
  stale: boolean;
  /** Changes when the row is written (an operator's retry): part of its batch job's id. */
  updated_at: Date;
  /** The trace of the request that wrote it (migration 370), carried on in the job's data. */
  traceparent: string | null;
}

/**
 * Builds the messages' outbox relay. A delivery the relay gives up on (too old) fails with a
 * message.failed event, which names the recipient (people's): the caller gives that step, so the
 * relay is registered by src/flows/messages (messages.registration.ts).
 */
@injectable()
export class OutboxRelays {
  constructor(
    @inject(ROOT_CONTAINER) private readonly root: DependencyContainer,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(QueueRegistry) private readonly queues: QueueRegistry,
    @inject(TenantResolver) private readonly tenants: TenantResolver,
    @inject(RELAY_TIMING) private readonly timing: RelayTiming,
    @inject(ENV) private readonly env: Env,
    @inject(TenantRelays) private readonly relays: TenantRelays,
  ) {}

  create(failedEvent: FailedDeliveryEvent): OutboxRelay {
    return new OutboxRelay(this.root, this.logger, this.queues, this.tenants, this.timing, this.env, this.relays, failedEvent);
  }
}

/**
 * Moves outbox rows (deliveries not yet relayed) to BullMQ. It sleeps until told (TenantRelay):
 * a tenant's transaction that writes deliveries sends NOTIFY outbox_pending on commit (tenant
 * migration 120), and the API adds the tenant to a Redis set after commit. Tenants with
 * deliveries queued or sending are looked at again every reconcileMs for redelivery and expiry;
 * every tenant only at the sweep (start, reconnects, hourly), one statement per 200 tenants.
 */
export class OutboxRelay implements BackgroundWorker {
  readonly name = 'outbox-relay';
  private readonly relay: TenantRelay;
  /** When this process last checked each tenant for expired deliveries. */
  private readonly expiryChecked = new Map<number, number>();

  constructor(
    private readonly root: DependencyContainer,
    private readonly logger: Logger,
    private readonly queues: QueueRegistry,
    private readonly tenants: TenantResolver,
    private readonly timing: RelayTiming,
    private readonly env: Env,
    relays: TenantRelays,
    private readonly failedEvent: FailedDeliveryEvent,
  ) {
    this.relay = relays.create({
      name: 'outbox relay',
      channel: OUTBOX_PENDING_CHANNEL,
      signalKey: pendingTenantsKey(queues.prefix),
      sweep: (knex, list) => tenantsWithPending(knex, list, MESSAGE_OUTBOX),
      look: (tenantId) => this.relayTenant(tenantId),
    });
  }

  start(): Promise<void> {
    return this.relay.start();
  }

  async stop(): Promise<void> {
    await this.relay.stop();
    await this.queues.close();
  }

  /** One pass; exposed for tests and tools. True when rows moved and some are left. */
  tick(): Promise<boolean> {
    return this.relay.tick();
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
  private async relayTenant(tenantId: number): Promise<TenantLook> {
    const tenant = await this.tenants.byTenantId(tenantId);
    if (!tenant) return { moved: 0, leftOver: false, inFlight: false };
    const scope = openTenantScope(this.root, tenant);
    const db = scope.resolve(TENANT_DB);
    const redeliver = this.env.OUTBOX_REDELIVER_AFTER_SECONDS;
    let inFlight: boolean | undefined;
    if (this.expiryDue(tenantId)) {
      const outbox = await this.expire(scope, redeliver);
      if (outbox === null) return { moved: 0, leftOver: false, inFlight: false }; // tenant schema not migrated yet
      inFlight = outbox.inFlight;
      this.expiryChecked.set(tenantId, Date.now());
    }
    const bulkRoom = Math.max(await this.bulkRoom(), 0);
    const rows = await this.dueRows(db, redeliver, bulkRoom + 1);
    if (rows === null) return { moved: 0, leftOver: false, inFlight: false }; // tenant schema not migrated yet
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
    // rows handed to the queue are in flight; else, unless this look reconciled, what the agenda knew stands
    return { moved: moving.length, leftOver: rows.length > moving.length, inFlight: moving.length > 0 ? true : inFlight };
  }

  /**
   * Expiry reads every undelivered row of the tenant with its message (a backlog of thousands
   * while a large send drains: 15-20 ms of PostgreSQL per pass in the bench), so it runs on a
   * tenant's first look in this process and then at most every reconcile interval (the agenda's:
   * reconcileMs, at most OUTBOX_REDELIVER_AFTER_SECONDS), not on every pass a commit's signal
   * brings: it is about rows MESSAGE_DELIVERY_MAX_AGE_HOURS old.
   */
  private expiryDue(tenantId: number): boolean {
    const last = this.expiryChecked.get(tenantId);
    const every = Math.min(this.timing.reconcileMs ?? this.timing.sweepMs, this.env.OUTBOX_REDELIVER_AFTER_SECONDS * 1000);
    return last === undefined || Date.now() - last >= every;
  }

  /**
   * The rows to relay, password mail first: those relayed before and not done after
   * OUTBOX_REDELIVER_AFTER_SECONDS (their job vanished, gave up or was cut off), then those not
   * relayed yet. Each part is read from a partial index (migration 150) in the order it is taken,
   * so a pass reads about the rows it moves, never the whole backlog in flight. null when the
   * tenant's schema is not migrated yet.
   */
  private async dueRows(db: TenantDb, redeliver: number, bulkLimit: number): Promise<OutboxRow[] | null> {
    const columns = `id, message_id, medium, case when priority > 0 then 'password' else 'message' end as kind, updated_at, traceparent`;
    const pending = `state in ('queued', 'sending')`;
    const fresh = (priority: string) => `(select ${columns}, false as stale from ?? where relayed_at is null and ${priority} and ${pending} order by id limit ?)`;
    const table = db.ref('message_deliveries');
    try {
      const { rows } = await db.raw(
        `(select ${columns}, true as stale from ?? where ${pending} and relayed_at < now() - make_interval(secs => ?) order by priority desc, id limit ?)
         union all ${fresh('priority > 0')} union all ${fresh('priority = 0')}`,
        [table, redeliver, bulkLimit + PASSWORD_ROWS_PER_BATCH, table, PASSWORD_ROWS_PER_BATCH + 1, table, bulkLimit],
      );
      return rows;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === '42P01' || code === '42703') return null;
      throw err;
    }
  }

  /**
   * Fails the tenant's undelivered rows past the maximum age, each with message.failed for the
   * webhooks in the same transaction, and tells whether any delivery was queued or sending before
   * (then the tenant is looked at again); null when the schema has no outbox yet.
   */
  private async expire(scope: DependencyContainer, redeliver: number): Promise<{ expired: number; inFlight: boolean } | null> {
    try {
      const result = await scope.resolve(UnitOfWork).run(async (tx) => {
        const trx = tx.get(TENANT_DB);
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
        for (const id of ids) await this.failedEvent(tx, id);
        return { expired: ids.length, inFlight };
      });
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

  /**
   * New rows go in batch jobs of DELIVERIES_PER_JOB (one claim, one UPDATE, one BullMQ job per
   * batch); rows relayed before go one job per row under their old job id, so a finished job
   * of theirs can be found and removed first.
   */
  private async enqueue(queue: MessageQueue, tenantId: number, rows: OutboxRow[]): Promise<void> {
    if (rows.length === 0) return;
    const retry = this.root.resolve(RETRY_POLICY);
    const opts = {
      attempts: retry.attempts,
      backoff: { type: 'capped-exponential' },
      removeOnComplete: { age: 7 * 86_400, count: 10_000 },
      removeOnFail: { age: 30 * 86_400 },
    };
    const stale = rows
      .filter((r) => r.stale)
      .map((row) => ({ ...DeliverMessage.parse({ tenantId, messageId: row.message_id, deliveryId: row.id, medium: row.medium }), ...jobTrace([row]) }));
    await this.clearFinished(queue, stale.map(deliverJobId));
    const fresh = rows.filter((r) => !r.stale);
    const batches: { data: DeliverBatch & JobTrace; jobId: string }[] = [];
    for (let i = 0; i < fresh.length; i += DELIVERIES_PER_JOB) {
      const part = fresh.slice(i, i + DELIVERIES_PER_JOB);
      const data = { ...DeliverBatch.parse({ tenantId, deliveryIds: part.map((r) => r.id) }), ...jobTrace(part) };
      batches.push({ data, jobId: deliverBatchJobId(tenantId, part.map((r) => ({ id: r.id, updatedAt: r.updated_at }))) });
    }
    await this.queues.get(queue).addBulk([
      ...stale.map((data) => ({ name: DELIVER_MESSAGE_JOB, data, opts: { ...opts, jobId: deliverJobId(data) } })),
      ...batches.map(({ data, jobId }) => ({ name: DELIVER_BATCH_JOB, data, opts: { ...opts, jobId } })),
    ]);
  }

  /**
   * How many bulk rows this tenant may add now: its turn's batch, bounded by the queue's room.
   * Every waiting job counts as a full batch, so the deliveries waiting never exceed maxQueueDepth;
   * none while the room is less than one batch.
   */
  private async bulkRoom(): Promise<number> {
    const counts = await this.queues.get('messages').getJobCounts('waiting', 'prioritized', 'delayed');
    const depth = (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
    const room = Math.min(this.timing.perTenantBatch, this.timing.maxQueueDepth - depth * DELIVERIES_PER_JOB);
    // Room for less than a whole batch: wait (pollMs) rather than move a few rows per pass as jobs finish.
    return room < Math.min(DELIVERIES_PER_JOB, this.timing.perTenantBatch) ? 0 : room;
  }
}

/**
 * The trace a delivery job continues (JobTrace): its first row's, with the other traces of its rows
 * as links (a batch gathers rows written by several requests). Nothing while tracing was off when
 * the rows were written.
 */
function jobTrace(rows: readonly OutboxRow[]): JobTrace {
  const traced = rows.map((r) => r.traceparent).filter((tp): tp is string => !!tp);
  if (!traced.length) return {};
  const parent = traced[0];
  const seen = new Set([traceIdOf(parent)]);
  const links = traced.filter((tp) => !seen.has(traceIdOf(tp)) && !!seen.add(traceIdOf(tp)));
  return links.length ? { traceparent: parent, tracelinks: links } : { traceparent: parent };
}
