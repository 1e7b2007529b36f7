import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { JOBS, defineJob } from '../../platform/queue/job-definition';
import { REPORT_SCHEDULE_SCAN_JOB } from '../../messaging';
import { REPORT_SCHEDULE_SCAN_OPTIONS, ReportScheduleScan } from './report-schedule-scan';

/** The scan for due report schedules: a platform job over every tenant (scheduled by messaging's ReportScheduleScheduler). */
export const reportScheduleScanJob = defineJob(REPORT_SCHEDULE_SCAN_JOB, z.object({}), async (root) => {
  await root.resolve(ReportScheduleScan).run();
});

export function registerReportScheduleFlows(c: DependencyContainer): void {
  c.register(REPORT_SCHEDULE_SCAN_OPTIONS, { useValue: {} });
  c.register(JOBS, { useValue: reportScheduleScanJob });
}
