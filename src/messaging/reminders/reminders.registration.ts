import type { DependencyContainer } from 'tsyringe';
import { BACKGROUND_WORKERS } from '../../platform/queue/worker-runtime';
import { QUEUES } from '../../platform/queue/job-definition';
import { ReminderScheduler, SCHEDULED_QUEUE } from './reminder-scheduler';
import { ReportScheduleScheduler } from '../report-schedules/report-schedule-scheduler';

/**
 * What the expiry reminders plug into a container from messaging (its index.ts calls it): when the
 * scan runs. The scan itself, its job and its options, are src/flows/reminders' (registerFlows).
 */
export function registerReminders(c: DependencyContainer): void {
  c.register(BACKGROUND_WORKERS, { useClass: ReminderScheduler });
  // the report schedule scan shares the `scheduled` queue (src/messaging/report-schedules)
  c.register(BACKGROUND_WORKERS, { useClass: ReportScheduleScheduler });
  c.register(QUEUES, { useValue: SCHEDULED_QUEUE });
}
