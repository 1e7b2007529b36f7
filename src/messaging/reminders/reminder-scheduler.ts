import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { BackgroundWorker } from '../../platform/queue/worker-runtime';
import { QueueRegistry } from '../../platform/queue/queue-registry';
import type { QueueDefinition } from '../../platform/queue/job-definition';

const RETRY_MS = 5_000;

/** The job of the reminder scan; its handler, which reads registrations and persons, is src/flows/reminders/reminder-scan.job.ts. */
export const REMINDER_SCAN_JOB = 'reminders.scan';

/** The one scheduler id: every worker process upserts the same scheduler, so there is one. */
export const REMINDER_SCHEDULER_ID = 'reminders.scan';

/** Periodic jobs (the reminder scan) have a queue of their own, so a delivery backlog does not delay them; one at a time. */
export const SCHEDULED_QUEUE: QueueDefinition = { name: 'scheduled', concurrency: 1 };

/**
 * Makes sure the BullMQ job scheduler of the reminder scan exists, every
 * REMINDER_SCAN_INTERVAL_SECONDS, on the 'scheduled' queue. Every worker process upserts the
 * same scheduler id: an upsert with an unchanged interval keeps the next run where it was, a
 * changed interval replaces it. Redis away at start: tried again until it works.
 */
@injectable()
export class ReminderScheduler implements BackgroundWorker {
  readonly name = 'reminder-scheduler';
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(
    @inject(QueueRegistry) private readonly queues: QueueRegistry,
    @inject(ENV) private readonly env: Env,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.upsert();
  }

  private async upsert(): Promise<void> {
    try {
      await this.queues.get(SCHEDULED_QUEUE.name).upsertJobScheduler(
        REMINDER_SCHEDULER_ID,
        { every: this.env.REMINDER_SCAN_INTERVAL_SECONDS * 1000 },
        {
          name: REMINDER_SCAN_JOB,
          data: {},
          // a failed scan is not retried by BullMQ: the next scheduled scan is the retry
          opts: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
        },
      );
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'reminder scan scheduler not set up; trying again');
      if (!this.stopped) this.timer = setTimeout(() => void this.upsert(), RETRY_MS);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
