import { inject, injectable, type DependencyContainer } from 'tsyringe';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ENV, LOGGER, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Env } from '../../platform/config/env';
import type { BackgroundWorker } from '../../platform/queue/worker-runtime';
import { ROOT_CONTAINER, type QueueDefinition } from '../../platform/queue/job-definition';
import { QueueRegistry } from '../../platform/queue/queue-registry';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../platform/tenant-scope/request-scope';
import { RELAY_TIMING, type RelayTiming } from '../outbox/relay-timing';
import { TenantRelays, type TenantRelay, type TenantLook } from '../outbox/tenant-relay';
import { tenantsWithPending, type OutboxTable, type ScanTenant } from '../outbox/pending-scan';
import { WEBHOOK_PENDING_CHANNEL, webhookTenantsKey } from './webhook-signal';
import { deliverWebhookJob, webhookJobId } from './deliver-webhook.job';
import { WEBHOOK_TIMING, type WebhookTiming } from './webhook-timing';
import { dropOldWebhookEvents } from './webhook-retention';

/** Webhooks have a queue of their own, so a slow receiver holds up no mail; attempts mostly wait on the receiver. */
export const WEBHOOK_QUEUE: QueueDefinition = { name: 'webhooks', concurrency: 16 };

/**
 * A tenant's share of the webhook slots of a worker process: past it, its deliveries run only while
 * this many slots stay free for other tenants (TenantSlots), so one tenant's slow receivers hold at
 * most 12 of the 16 slots and never delay another tenant's deliveries by a whole attempt timeout.
 */
export const WEBHOOK_TENANT_SLOTS = 4;

/** What the sweep probes: the partial index webhook_deliveries_pending (migration 110). */
export const WEBHOOK_OUTBOX: OutboxTable = { table: 'webhook_deliveries', pendingStates: ['pending', 'sending'] };

/** BullMQ's attempt budget is never what ends a delivery: its age (WebhookTiming.maxAgeMs) is. */
const JOB_ATTEMPTS = 1000;

interface Row {
  id: number;
  stale: boolean;
}

export interface DueDeliveries {
  /** In id order: at most `limit` rows of each kind, so the first `limit` are the `limit` lowest ids of both. */
  due: Row[];
  /** Whether any delivery is pending or sending (waiting retries included). */
  in_flight: boolean;
}

/**
 * The deliveries a look at a tenant may move, in id order: those not relayed yet, and those
 * relayed whose next attempt is OUTBOX_REDELIVER_AFTER_SECONDS past (stale: the job vanished or
 * its worker died); and whether any delivery is in flight. Each kind is one range of its own
 * partial index (tenant migration 160) read in the order taken with a LIMIT, so a pass reads
 * about the rows it moves, never the deliveries waiting for a retry (a receiver that is down).
 * Taking the `limit` lowest ids of the result gives what one scan of both kinds in id order gave,
 * unless more than `limit` rows are stale: then the most overdue go first.
 */
export async function dueDeliveries(db: TenantDb, redeliverAfterSeconds: number, limit: number): Promise<DueDeliveries> {
  const { rows } = await dueDeliveriesQuery(db, redeliverAfterSeconds, limit);
  return rows[0];
}

/** The statement of dueDeliveries (test/messaging/webhooks/webhook-relay-ranges.test.ts reads its plan). */
export function dueDeliveriesQuery(db: TenantDb, redeliverAfterSeconds: number, limit: number): Knex.Raw {
  const table = db.ref('webhook_deliveries');
  const inFlight = `state in ('pending', 'sending')`;
  return db.raw(
    `select coalesce((select json_agg(d order by d.id) from (
              (select id, true as stale from ?? where relayed_at is not null and ${inFlight}
                  and next_attempt_at < now() - make_interval(secs => ?)
                order by next_attempt_at, id limit ?)
              union all
              (select id, false as stale from ?? where relayed_at is null and ${inFlight} order by id limit ?)) d), '[]') as due,
            (select 1 from ?? where ${inFlight} order by id limit 1) is not null as in_flight`,
    [table, redeliverAfterSeconds, limit, table, limit, table],
  );
}

/**
 * Moves webhook deliveries from the tenant's outbox (webhook_deliveries not yet relayed) to the
 * webhooks queue, woken the way OutboxRelay is (TenantRelay): a delivery that needs the relay
 * sends NOTIFY webhook_pending '<schema>' on commit (tenant migration 140), the API adds the
 * tenant to a Redis set after commit. Tenants with deliveries pending or sending (waiting for a
 * retry included) are looked at again every reconcileMs: a delivery past its next attempt by
 * OUTBOX_REDELIVER_AFTER_SECONDS (its job vanished, or its worker died) is relayed again. Every
 * tenant is looked at only at the sweep (start, reconnects, hourly: one statement per 200
 * tenants), which also drops events older than WebhookTiming.keepMs, batched the same way.
 */
@injectable()
export class WebhookRelay implements BackgroundWorker {
  readonly name = 'webhook-relay';
  private readonly relay: TenantRelay;

  constructor(
    @inject(ROOT_CONTAINER) private readonly root: DependencyContainer,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(QueueRegistry) private readonly queues: QueueRegistry,
    @inject(TenantResolver) private readonly tenants: TenantResolver,
    @inject(RELAY_TIMING) private readonly timing: RelayTiming,
    @inject(WEBHOOK_TIMING) private readonly webhookTiming: WebhookTiming,
    @inject(ENV) private readonly env: Env,
    @inject(TenantRelays) relays: TenantRelays,
  ) {
    this.relay = relays.create({
      name: 'webhook relay',
      channel: WEBHOOK_PENDING_CHANNEL,
      signalKey: webhookTenantsKey(queues.prefix),
      sweep: (knex, list) => this.sweep(knex, list),
      look: (tenantId) => this.relayTenant(tenantId),
    });
  }

  start(): Promise<void> {
    return this.relay.start();
  }

  stop(): Promise<void> {
    return this.relay.stop();
  }

  /** One pass; exposed for tests and tools. True when rows moved and some are left. */
  tick(): Promise<boolean> {
    return this.relay.tick();
  }

  /** The sweep on one cluster: old events dropped (a failure waits for the next sweep), then the tenants with deliveries in flight. */
  private async sweep(knex: Knex, tenants: readonly ScanTenant[]): Promise<number[]> {
    try {
      const n = await dropOldWebhookEvents(knex, tenants, new Date(Date.now() - this.webhookTiming.keepMs));
      if (n) this.logger.info({ events: n }, 'webhook relay: old events dropped');
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'webhook relay: could not drop old events; trying at the next sweep');
    }
    return tenantsWithPending(knex, tenants, WEBHOOK_OUTBOX);
  }

  /**
   * One batch of the tenant's new deliveries, and those past their next attempt by
   * OUTBOX_REDELIVER_AFTER_SECONDS (stale), in one statement that also tells whether any delivery
   * is still in flight; one addBulk and one UPDATE. A crash between the two re-adds the jobs on
   * the next look; the job id makes that a no-op.
   */
  private async relayTenant(tenantId: number): Promise<TenantLook> {
    const nothing = { moved: 0, leftOver: false, inFlight: false };
    const tenant = await this.tenants.byTenantId(tenantId);
    if (!tenant) return nothing;
    const db = openTenantScope(this.root, tenant).resolve(TENANT_DB);
    const batch = this.timing.perTenantBatch;
    let found: DueDeliveries;
    try {
      found = await dueDeliveries(db, this.env.OUTBOX_REDELIVER_AFTER_SECONDS, batch + 1);
    } catch (err) {
      // a tenant whose schema has not been migrated to webhooks yet has nothing to relay
      if ((err as { code?: string }).code === '42P01') return nothing;
      throw err;
    }
    const moving = found.due.slice(0, batch).map((r) => ({ id: Number(r.id), stale: r.stale }));
    const look = { moved: moving.length, leftOver: found.due.length > moving.length, inFlight: found.in_flight };
    if (moving.length === 0) return look;
    await this.enqueue(tenantId, moving);
    await db
      .table('webhook_deliveries')
      .whereIn(
        'id',
        moving.map((r) => r.id),
      )
      .update({ relayed_at: db.fn.now(), next_attempt_at: db.fn.now() });
    const again = moving.filter((r) => r.stale).length;
    if (again) this.logger.info({ tenantId, deliveries: again }, 'webhook relay: deliveries relayed again (job lost or worker died)');
    return look;
  }

  private async enqueue(tenantId: number, rows: { id: number; stale: boolean }[]): Promise<void> {
    const q = this.queues.get(WEBHOOK_QUEUE.name);
    const jobs = rows.map((r) => ({ r, data: deliverWebhookJob.schema.parse({ tenantId, deliveryId: r.id }) }));
    // BullMQ ignores an add whose id it still holds: a finished job of a stale row goes first
    await Promise.all(
      jobs
        .filter((j) => j.r.stale)
        .map(async (j) => {
          const id = webhookJobId(j.data);
          const state = await q.getJobState(id);
          if (state === 'completed' || state === 'failed') await q.remove(id);
        }),
    );
    await q.addBulk(
      jobs.map(({ data }) => ({
        name: deliverWebhookJob.name,
        data,
        opts: {
          jobId: webhookJobId(data),
          attempts: JOB_ATTEMPTS,
          backoff: { type: 'webhook-schedule' },
          removeOnComplete: { age: 86_400, count: 10_000 },
          removeOnFail: { age: 7 * 86_400 },
        },
      })),
    );
  }
}
