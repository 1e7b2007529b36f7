import type { DependencyContainer } from 'tsyringe';
import { BACKGROUND_WORKERS } from '../../platform/queue/worker-runtime';
import { JOBS, QUEUES } from '../../platform/queue/job-definition';
import { ReminderScheduler, SCHEDULED_QUEUE } from './reminder-scheduler';
import { REMINDER_SCAN_OPTIONS, DEFAULT_REMINDER_SCAN_OPTIONS } from './reminder-scan';
import { reminderScanJob } from './reminder-scan.job';

/** Everything the expiry reminders plug into a container (messaging's index.ts calls it). */
export function registerReminders(c: DependencyContainer): void {
  c.register(REMINDER_SCAN_OPTIONS, { useValue: DEFAULT_REMINDER_SCAN_OPTIONS });
  c.register(BACKGROUND_WORKERS, { useClass: ReminderScheduler });
  c.register(QUEUES, { useValue: SCHEDULED_QUEUE });
  c.register(JOBS, { useValue: reminderScanJob });
}
