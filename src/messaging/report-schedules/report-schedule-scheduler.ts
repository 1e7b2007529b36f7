import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { BackgroundWorker } from '../../platform/queue/worker-runtime';
import { QueueRegistry } from '../../platform/queue/queue-registry';
import { SCHEDULED_QUEUE } from '../reminders/reminder-scheduler';

const RETRY_MS = 5_000;

/** The scan for due report schedules; its handler (reports are flows) is src/flows/reports/report-schedule-scan.job.ts. */
export const REPORT_SCHEDULE_SCAN_JOB = 'reports.schedules.scan';
export const REPORT_SCHEDULE_SCHEDULER_ID = 'reports.schedules.scan';

/**
 * Makes sure the BullMQ job scheduler of the report schedule scan exists, every
 * REPORT_SCHEDULE_SCAN_INTERVAL_SECONDS, on the `scheduled` queue (the reminder scan's). Every worker
 * process upserts the same scheduler id, so there is one; exactly-once per period comes from the
 * claim rows (report_schedule_runs), not from here.
 */
@injectable()
export class ReportScheduleScheduler implements BackgroundWorker {
  readonly name = 'report-schedule-scheduler';
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
        REPORT_SCHEDULE_SCHEDULER_ID,
        { every: this.env.REPORT_SCHEDULE_SCAN_INTERVAL_SECONDS * 1000 },
        { name: REPORT_SCHEDULE_SCAN_JOB, data: {}, opts: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } },
      );
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'report schedule scan scheduler not set up; trying again');
      if (!this.stopped) this.timer = setTimeout(() => void this.upsert(), RETRY_MS);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
