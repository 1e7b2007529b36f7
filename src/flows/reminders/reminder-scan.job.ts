import { z } from 'zod';
import { defineJob } from '../../platform/queue/job-definition';
import { REMINDER_SCAN_JOB } from '../../messaging';
import { ReminderScan } from './reminder-scan';

/**
 * The periodic reminder scan: a platform job over every tenant, so its data carries no tenant
 * (each tenant is scanned in a scope of its own). Made by messaging's job scheduler (ReminderScheduler).
 */
export const reminderScanJob = defineJob(REMINDER_SCAN_JOB, z.object({}), async (root) => {
  await root.resolve(ReminderScan).run();
});
