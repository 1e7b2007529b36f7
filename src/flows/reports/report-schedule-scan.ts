import { inject, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER } from '../../platform/tokens';
import { ROOT_CONTAINER } from '../../platform/queue/job-definition';
import { TenantStore } from '../../platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../platform/tenant-scope/request-scope';
import { ScheduleRunner, type RunOutcome } from './schedule-runner';

export interface ReportScheduleScanOptions {
  /** Tenants this process scans (tests share one database); all when absent. */
  onlyTenants?: readonly number[];
}
export const REPORT_SCHEDULE_SCAN_OPTIONS: InjectionToken<ReportScheduleScanOptions> = Symbol('ReportScheduleScanOptions');

export type ReportScanSummary = Record<RunOutcome, number> & { tenants: number; failedTenants: number };

/**
 * The scan for due report schedules over every active tenant (job `reports.schedules.scan`, every
 * REPORT_SCHEDULE_SCAN_INTERVAL_SECONDS). No lock: scans that overlap (several worker processes, a
 * scan cut off and handed to another worker) each make the file, and the claim row decides which one
 * writes the mails; the others find the period taken.
 */
@injectable()
export class ReportScheduleScan {
  constructor(
    @inject(ROOT_CONTAINER) private readonly root: DependencyContainer,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(TenantResolver) private readonly tenants: TenantResolver,
    @inject(REPORT_SCHEDULE_SCAN_OPTIONS) private readonly options: ReportScheduleScanOptions,
  ) {}

  async run(): Promise<ReportScanSummary> {
    const sum: ReportScanSummary = { tenants: 0, failedTenants: 0, sent: 0, no_recipients: 0, refused: 0, taken: 0, gone: 0 };
    const rows = (await this.store.list()).filter((row) => row.status === 'active' && (!this.options.onlyTenants || this.options.onlyTenants.includes(row.id)));
    for (const row of rows) {
      try {
        const tenant = await this.tenants.byTenantId(row.id);
        if (!tenant || tenant.status !== 'active') continue;
        const counts = await openTenantScope(this.root, tenant).resolve(ScheduleRunner).runDue();
        sum.tenants++;
        for (const k of Object.keys(counts) as RunOutcome[]) sum[k] += counts[k];
      } catch (err) {
        // a schema not migrated to 270_report_schedules yet
        if ((err as { code?: string }).code === '42P01') continue;
        sum.failedTenants++;
        this.logger.warn({ err: (err as Error).message, tenantId: row.id }, 'report schedule scan of a tenant failed; the next scan retries it');
      }
    }
    if (sum.sent + sum.refused + sum.no_recipients + sum.failedTenants > 0) this.logger.info(sum, 'report schedule scan done');
    return sum;
  }
}
