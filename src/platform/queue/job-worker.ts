import { inject, injectAll, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';
import { DelayedError, Worker, type Job } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../tokens';
import type { Env } from '../config/env';
import type { BackgroundWorker } from './worker-runtime';
import {
  backoffDelay,
  JOBS,
  PermanentJobError,
  QUEUES,
  RetryAfterError,
  ROOT_CONTAINER,
  QUEUE_PREFIX,
  QUEUE_REDIS,
  type JobDefinition,
  type QueueDefinition,
  type RetryPolicy,
} from './job-definition';
import { bullConnection, bullPrefix } from './queue-registry';
import { bumpSharedCounter } from '../metrics/shared-counters';
import { inSpan, SpanKind, tracingEnabled } from '../tracing/tracing';
import type { JobTrace } from './job-definition';

export const RETRY_POLICY: InjectionToken<RetryPolicy> = Symbol('RetryPolicy');
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 8, baseDelayMs: 5_000, maxDelayMs: 10 * 60_000 };

/**
 * Runs every registered job (JOBS) on the registered queues (QUEUES). Each job gets the root container and opens
 * its own tenant scope; a PermanentJobError ends the job without retries.
 */
@injectable()
export class JobWorkers implements BackgroundWorker {
  readonly name = 'jobs';
  private workers: Worker[] = [];
  private readonly byName: Map<string, JobDefinition>;

  constructor(
    @inject(QUEUE_REDIS) private readonly redis: RedisClient,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(RETRY_POLICY) private readonly retry: RetryPolicy,
    @inject(ROOT_CONTAINER) private readonly root: DependencyContainer,
    @inject(QUEUE_PREFIX) private readonly prefix: string,
    @inject(ENV) private readonly env: Env,
    @injectAll(JOBS, { isOptional: true }) jobs: JobDefinition[] = [],
    @injectAll(QUEUES, { isOptional: true }) private readonly queues: QueueDefinition[] = [],
  ) {
    this.byName = new Map(jobs.map((j) => [j.name, j]));
  }

  async start(): Promise<void> {
    for (const def of this.queues) {
      const { name: queue, concurrency } = def;
      const slots = new TenantSlots(concurrency, def.tenantShare);
      const w = new Worker(queue, (job, token) => slots.run(job, token, () => this.run(job)), {
        connection: bullConnection(this.redis, true),
        prefix: bullPrefix(this.prefix, queue, this.redis),
        concurrency,
        settings: {
          backoffStrategy: (attemptsMade: number, _type?: string, err?: Error) =>
            err instanceof RetryAfterError ? Math.max(0, err.delayMs) : backoffDelay(this.retry, attemptsMade),
        },
      });
      w.on('error', (err) => this.logger.warn({ err: err.message, queue }, 'worker connection error'));
      w.on('failed', (job, err) => {
        this.logger.info({ job: job?.id, queue, attempts: job?.attemptsMade, err: err.message }, 'job failed');
        const last = !job || err instanceof PermanentJobError || job.attemptsMade >= (job.opts.attempts ?? 1);
        if (last) void bumpSharedCounter(this.root, 'job-final-failures', [queue]);
      });
      this.workers.push(w);
    }
  }

  /** A job runs in a span of its own (tracing on): a child of the trace its producer put in the data (JobTrace), if any. */
  private run(job: Job): Promise<void> {
    if (!tracingEnabled()) return this.handle(job);
    const data = (job.data ?? {}) as JobTrace & { tenantId?: unknown };
    return inSpan(
      `job ${job.name}`,
      {
        kind: SpanKind.CONSUMER,
        parent: data.traceparent ?? null,
        links: data.tracelinks,
        attributes: {
          'messaging.system': 'bullmq',
          'messaging.operation.type': 'process',
          'messaging.destination.name': job.queueName,
          'messaging.message.id': String(job.id),
          'job.name': job.name,
          'job.attempt': job.attemptsMade + 1,
          ...(typeof data.tenantId === 'number' ? { 'tenant.id': data.tenantId } : {}),
        },
      },
      () => this.handle(job),
    );
  }

  private async handle(job: Job): Promise<void> {
    const def = this.byName.get(job.name);
    if (!def) throw new PermanentJobError(`unknown job ${job.name}`);
    const parsed = def.schema.safeParse(job.data);
    if (!parsed.success) throw new PermanentJobError(`invalid data for ${job.name}: ${parsed.error.message}`);
    await def.handle(this.root, parsed.data, { number: job.attemptsMade + 1, max: job.opts.attempts ?? 1 });
  }

  /**
   * close() takes no new jobs and lets active ones finish, for at most SHUTDOWN_GRACE_MS; jobs not
   * yet started stay in Redis for the next worker. A job still running then (or a worker cut off
   * from Redis) is left behind: the process exits under it, its BullMQ lock runs out and its
   * delivery row stays `sending`, so it is sent again (at least once, same Message-ID).
   */
  async stop(): Promise<void> {
    const ws = this.workers;
    this.workers = [];
    let timer: NodeJS.Timeout | undefined;
    const closed = Promise.allSettled(ws.map((w) => w.close())).then(() => 'closed' as const);
    const grace = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), this.env.SHUTDOWN_GRACE_MS)));
    // BullMQ's close(true) cannot overtake a close() already waiting for its jobs, so none is tried
    if ((await Promise.race([closed, grace])) === 'late') this.logger.warn('shutdown grace over: jobs still running are left to be retried');
    clearTimeout(timer);
  }
}

/**
 * A queue's slots in this process, counted per tenant (QueueDefinition.tenantShare). A job of a
 * tenant at its share runs only while, with it, at least `share` slots stay free; else it goes back
 * to the delayed set (BullMQ's documented manual delay: moveToDelayed, then DelayedError; no attempt
 * is counted) and its slot takes the next job, maybe another tenant's. A tenant therefore holds at
 * most concurrency - share slots, and any other tenant's job finds a slot as soon as it is taken
 * from the queue, as long as fewer than concurrency / share tenants are slow at once.
 */
export class TenantSlots {
  private readonly byTenant = new Map<number, number>();
  private running = 0;

  constructor(
    private readonly concurrency: number,
    private readonly share: { slots: number; deferMs: number } | undefined,
  ) {}

  async run(job: Job, token: string | undefined, work: () => Promise<void>): Promise<void> {
    const tenantId = (job.data as { tenantId?: unknown } | null)?.tenantId;
    if (!this.share || typeof tenantId !== 'number') return work();
    const mine = this.byTenant.get(tenantId) ?? 0;
    const freeAfter = this.concurrency - this.running - 1;
    if (mine >= this.share.slots && freeAfter < this.share.slots) {
      await job.moveToDelayed(Date.now() + this.share.deferMs + Math.floor(Math.random() * this.share.deferMs), token);
      throw new DelayedError();
    }
    this.byTenant.set(tenantId, mine + 1);
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      const left = (this.byTenant.get(tenantId) ?? 1) - 1;
      if (left > 0) this.byTenant.set(tenantId, left);
      else this.byTenant.delete(tenantId);
    }
  }
}
