import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import { PeriodicJobScheduler } from '../../platform/queue/periodic-job-scheduler';
import { QueueRegistry } from '../../platform/queue/queue-registry';
import { SCHEDULED_QUEUE } from '../reminders/reminder-scheduler';

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
export class ReportScheduleScheduler extends PeriodicJobScheduler {
  readonly name = 'report-schedule-scheduler';

  constructor(@inject(QueueRegistry) queues: QueueRegistry, @inject(ENV) env: Env, @inject(LOGGER) logger: Logger) {
    super(queues, logger, {
      queue: SCHEDULED_QUEUE.name,
      schedulerId: REPORT_SCHEDULE_SCHEDULER_ID,
      jobName: REPORT_SCHEDULE_SCAN_JOB,
      everyMs: () => env.REPORT_SCHEDULE_SCAN_INTERVAL_SECONDS * 1000,
      what: 'report schedule scan',
    });
  }
}
