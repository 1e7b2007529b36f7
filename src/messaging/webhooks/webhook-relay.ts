import { inject, injectable, type DependencyContainer } from 'tsyringe';
import type { RedisClient } from '../../platform/redis/redis-client';
import type { Logger } from 'pino';
import { ENV, LOGGER, TENANT_DB } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { BackgroundWorker } from '../../platform/queue/worker-runtime';
import { ROOT_CONTAINER, QUEUE_REDIS, type QueueDefinition } from '../../platform/queue/job-definition';
import { QueueRegistry } from '../../platform/queue/queue-registry';
import { TenantResolver } from '../../platform/tenancy/tenant-resolver';
import { TenantStore } from '../../platform/tenancy/tenant-store';
import { openTenantScope } from '../../platform/tenancy/request-scope';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import { RELAY_TIMING, type RelayTiming } from '../messages/outbox-relay';
import { webhookTenantsKey } from './webhook-signal';
import { deliverWebhookJob, webhookJobId } from './deliver-webhook.job';
import { WEBHOOK_TIMING, type WebhookTiming } from './webhook-timing';

/** Webhooks have a queue of their own, so a slow receiver holds up no mail; attempts mostly wait on the receiver. */
export const WEBHOOK_QUEUE: QueueDefinition = { name: 'webhooks', concurrency: 16 };

/** BullMQ's attempt budget is never what ends a delivery: its age (WebhookTiming.maxAgeMs) is. */
const JOB_ATTEMPTS = 1000;

interface Row {
  id: number;
  stale: boolean;
}

/**
 * Moves webhook deliveries from the tenant's outbox (webhook_deliveries not yet relayed) to the
 * webhooks queue, the way OutboxRelay does for messages: tenants with new rows come from a Redis
 * set filled after commit; a sweep of every tenant at start, every sweepMs and when Redis comes
 * back finds rows whose signal was lost, and rows whose job vanished or whose worker died
 * (pending or sending, past their next attempt by OUTBOX_REDELIVER_AFTER_SECONDS), and relays
 * them again. The sweep also drops events older than WebhookTiming.keepMs.
 */
@injectable()
export class WebhookRelay implements BackgroundWorker {
  readonly name = 'webhook-relay';
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private lastSweep = 0;
  private sweepRequested = true;
  private carry = new Set<number>();

  constructor(
    @inject(ROOT_CONTAINER) private readonly root: DependencyContainer,
    @inject(QUEUE_REDIS) private readonly redis: RedisClient,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(QueueRegistry) private readonly queues: QueueRegistry,
    @inject(TenantResolver) private readonly tenants: TenantResolver,
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(RELAY_TIMING) private readonly timing: RelayTiming,
    @inject(WEBHOOK_TIMING) private readonly webhookTiming: WebhookTiming,
    @inject(ENV) private readonly env: Env,
  ) {}

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
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      let again = false;
      this.running = this.tick()
        .then((backlog) => {
          again = backlog;
        })
        .catch((err) => this.logger.warn({ err: (err as Error).message }, 'webhook relay tick failed'))
        .finally(() => this.schedule(again ? 0 : this.timing.pollMs));
    }, ms);
  }

  private serves(tenantId: number): boolean {
    return !this.timing.onlyTenants || this.timing.onlyTenants.includes(tenantId);
  }

  /** One pass; true when rows moved and some are left. */
  async tick(): Promise<boolean> {
    const due = new Set<number>(this.carry);
    this.carry.clear();
    let sweep = false;
    const sweepMs = Math.min(this.timing.sweepMs, this.env.OUTBOX_REDELIVER_AFTER_SECONDS * 1000);
    if (this.sweepRequested || Date.now() - this.lastSweep >= sweepMs) {
      sweep = true;
      this.sweepRequested = false;
      this.lastSweep = Date.now();
      for (const t of await this.store.list()) if (t.status === 'active' && this.serves(t.id)) due.add(t.id);
    }
    try {
      const popped = (await this.redis.spop(webhookTenantsKey(this.queues.prefix), 1000)) as string[] | null;
      for (const id of popped ?? []) if (this.serves(Number(id))) due.add(Number(id));
    } catch {
      // Redis is away: nothing can be relayed now; the 'ready' event asks for a sweep.
    }
    let moved = 0;
    for (const tenantId of due) {
      if (this.stopped) break;
      try {
        const r = await this.relayTenant(tenantId, sweep);
        moved += r.moved;
        if (r.leftOver) this.carry.add(tenantId);
      } catch (err) {
        this.carry.add(tenantId);
        this.logger.warn({ err: (err as Error).message, tenantId }, 'webhook relay could not relay a tenant; will retry');
      }
    }
    return moved > 0 && this.carry.size > 0;
  }

  private async relayTenant(tenantId: number, sweep: boolean): Promise<{ moved: number; leftOver: boolean }> {
    const tenant = await this.tenants.byTenantId(tenantId);
    if (!tenant) return { moved: 0, leftOver: false };
    const db = openTenantScope(this.root, tenant).resolve(TENANT_DB);
    let rows: Row[];
    try {
      if (sweep) await this.dropOld(db);
      rows = await db
        .table('webhook_deliveries')
        .whereIn('state', ['pending', 'sending'])
        .where((q) =>
          q.whereNull('relayed_at').orWhereRaw('next_attempt_at < now() - make_interval(secs => ?)', [this.env.OUTBOX_REDELIVER_AFTER_SECONDS]),
        )
        .orderBy('id')
        .limit(this.timing.perTenantBatch + 1)
        .select('id', db.raw('relayed_at is not null as stale'));
    } catch (err) {
      // a tenant whose schema has not been migrated to webhooks yet has nothing to relay
      if ((err as { code?: string }).code === '42P01') return { moved: 0, leftOver: false };
      throw err;
    }
    const moving = rows.slice(0, this.timing.perTenantBatch).map((r) => ({ id: Number(r.id), stale: r.stale }));
    if (moving.length === 0) return { moved: 0, leftOver: false };
    await this.enqueue(tenantId, moving);
    await db.table('webhook_deliveries').whereIn('id', moving.map((r) => r.id)).update({ relayed_at: db.fn.now(), next_attempt_at: db.fn.now() });
    const again = moving.filter((r) => r.stale).length;
    if (again) this.logger.info({ tenantId, deliveries: again }, 'webhook relay: deliveries relayed again (job lost or worker died)');
    return { moved: moving.length, leftOver: rows.length > moving.length };
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

  private async dropOld(db: TenantDb): Promise<void> {
    const n = await db
      .table('webhook_events')
      .where('created_at', '<', new Date(Date.now() - this.webhookTiming.keepMs))
      .delete();
    if (n) this.logger.info({ events: n }, 'webhook relay: old events dropped');
  }
}
