import type { Logger } from 'pino';
import type { BackgroundWorker } from './worker-runtime';
import type { QueueRegistry } from './queue-registry';

const RETRY_MS = 5_000;

export interface PeriodicJob {
  /** The queue the job runs on. */
  queue: string;
  /** One id for every worker process: they all upsert the same scheduler, so there is one. */
  schedulerId: string;
  /** The job's name (its handler is registered under it). */
  jobName: string;
  /** Milliseconds between runs (read at each upsert). */
  everyMs: () => number;
  /** For the log: what the job does. */
  what: string;
}

/**
 * Makes sure the BullMQ job scheduler of a periodic job exists. Every worker process upserts the
 * same scheduler id: an upsert with an unchanged interval keeps the next run where it was, a
 * changed interval replaces it. Redis away at start: tried again until it works. A failed run is
 * not retried by BullMQ: the next scheduled run is the retry.
 */
export abstract class PeriodicJobScheduler implements BackgroundWorker {
  abstract readonly name: string;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;

  protected constructor(
    private readonly queues: QueueRegistry,
    private readonly logger: Logger,
    private readonly job: PeriodicJob,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.upsert();
  }

  private async upsert(): Promise<void> {
    try {
      await this.queues
        .get(this.job.queue)
        .upsertJobScheduler(
          this.job.schedulerId,
          { every: this.job.everyMs() },
          { name: this.job.jobName, data: {}, opts: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } },
        );
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, `${this.job.what} scheduler not set up; trying again`);
      if (!this.stopped) this.timer = setTimeout(() => void this.upsert(), RETRY_MS);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
