import { inject, injectAll, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';
import { Worker, type Job } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../tokens';
import type { Env } from '../config/env';
import type { BackgroundWorker } from './worker-runtime';
import { backoffDelay, JOBS, PermanentJobError, QUEUES, RetryAfterError, ROOT_CONTAINER, QUEUE_PREFIX, QUEUE_REDIS, type JobDefinition, type QueueDefinition, type RetryPolicy } from './job-definition';
import { bullConnection, bullPrefix } from './queue-registry';
import { bumpSharedCounter } from '../metrics/shared-counters';

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
    for (const { name: queue, concurrency } of this.queues) {
      const w = new Worker(queue, (job) => this.run(job), {
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

  private async run(job: Job): Promise<void> {
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
