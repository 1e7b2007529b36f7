import type { DependencyContainer } from 'tsyringe';
import { JOBS } from '../../platform/queue/job-definition';
import { REMINDER_SCAN_OPTIONS, DEFAULT_REMINDER_SCAN_OPTIONS } from './reminder-scan';
import { reminderScanJob } from './reminder-scan.job';

/** The expiry reminder scan's job (on messaging's `scheduled` queue, scheduled by messaging's ReminderScheduler). */
export function registerReminderFlows(c: DependencyContainer): void {
  c.register(REMINDER_SCAN_OPTIONS, { useValue: DEFAULT_REMINDER_SCAN_OPTIONS });
  c.register(JOBS, { useValue: reminderScanJob });
}
