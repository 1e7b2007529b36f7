import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import { PeriodicJobScheduler } from '../../platform/queue/periodic-job-scheduler';
import { QueueRegistry } from '../../platform/queue/queue-registry';
import type { QueueDefinition } from '../../platform/queue/job-definition';

/** The job of the reminder scan; its handler, which reads registrations and persons, is src/flows/reminders/reminder-scan.job.ts. */
export const REMINDER_SCAN_JOB = 'reminders.scan';

/** The one scheduler id: every worker process upserts the same scheduler, so there is one. */
export const REMINDER_SCHEDULER_ID = 'reminders.scan';

/** Periodic jobs (the reminder scan) have a queue of their own, so a delivery backlog does not delay them; one at a time. */
export const SCHEDULED_QUEUE: QueueDefinition = { name: 'scheduled', concurrency: 1 };

/** The reminder scan, every REMINDER_SCAN_INTERVAL_SECONDS, on the 'scheduled' queue. */
@injectable()
export class ReminderScheduler extends PeriodicJobScheduler {
  readonly name = 'reminder-scheduler';

  constructor(@inject(QueueRegistry) queues: QueueRegistry, @inject(ENV) env: Env, @inject(LOGGER) logger: Logger) {
    super(queues, logger, {
      queue: SCHEDULED_QUEUE.name,
      schedulerId: REMINDER_SCHEDULER_ID,
      jobName: REMINDER_SCAN_JOB,
      everyMs: () => env.REMINDER_SCAN_INTERVAL_SECONDS * 1000,
      what: 'reminder scan',
    });
  }
}
