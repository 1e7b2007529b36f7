import { z } from 'zod';
import { defineJob } from '../../platform/queue/job-definition';
import { ReminderScan } from './reminder-scan';

/**
 * The periodic reminder scan: a platform job over every tenant, so its data carries no tenant
 * (each tenant is scanned in a scope of its own). Made by the BullMQ job scheduler below.
 */
export const reminderScanJob = defineJob('reminders.scan', z.object({}), async (root) => {
  await root.resolve(ReminderScan).run();
});

/** The one scheduler id: every worker process upserts the same scheduler, so there is one. */
export const REMINDER_SCHEDULER_ID = 'reminders.scan';
