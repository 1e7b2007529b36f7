import { inject, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER } from '../../platform/tokens';
import { ROOT_CONTAINER } from '../../platform/queue/job-definition';
import { TenantStore } from '../../platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../platform/tenant-scope/request-scope';
import { CLUSTERS, type Clusters } from '../../platform/clusters/clusters';
import { tenantsWithReportSchedules } from '../../messaging';
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
    @inject(CLUSTERS) private readonly clusters: Clusters,
  ) {}

  /** Tenants with a schedule, by the batched check; null (visit them all) when it fails. A cluster not in use is visited. */
  private async withSchedules(rows: readonly { id: number; schema_name: string; cluster: string | null }[]): Promise<Set<number> | null> {
    try {
      const found = new Set<number>();
      const byCluster = new Map<string, { id: number; schema: string }[]>();
      for (const r of rows) {
        const cluster = r.cluster ?? 'main';
        if (!this.clusters.has(cluster)) found.add(r.id);
        else byCluster.set(cluster, [...(byCluster.get(cluster) ?? []), { id: r.id, schema: r.schema_name }]);
      }
      for (const [cluster, tenants] of byCluster) for (const id of await tenantsWithReportSchedules(this.clusters.admin(cluster), tenants)) found.add(id);
      return found;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'report schedule scan: the check for schedules failed; visiting every tenant');
      return null;
    }
  }

  async run(): Promise<ReportScanSummary> {
    const sum: ReportScanSummary = { tenants: 0, failedTenants: 0, sent: 0, no_recipients: 0, refused: 0, taken: 0, gone: 0 };
    const rows = (await this.store.list()).filter((row) => row.status === 'active' && (!this.options.onlyTenants || this.options.onlyTenants.includes(row.id)));
    const withSchedules = await this.withSchedules(rows);
    for (const row of rows) {
      if (withSchedules && !withSchedules.has(row.id)) {
        sum.tenants++; // no schedule: settled by the check, no visit
        continue;
      }
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
