import { Writable } from 'node:stream';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { TenantClock } from '../../platform/time/tenant-clock';
import { CompetenceMatrixFlow } from './competence-reports';
import { ComplianceSummaryFlow } from './compliance-summary';
import { FILE_TYPES, complianceCsv, complianceXlsx, matrixCsv, matrixXlsx } from './report-files';

/** A schedule's report parameters (schedule_data), as the report's GET takes them; `date` is the run's today. */
export interface ScheduledReportParams {
  organisation_id: number;
  recursive?: boolean;
  role_ids?: number[];
  competence_ids?: number[];
  expiring_within_days?: number;
  include_optional?: boolean;
}

export interface ReportFile {
  filename: string;
  contentType: string;
  content: Buffer;
  date: string;
}

/** Collects what a report writer streams. */
async function collect(write: (out: Writable) => Promise<void>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  await write(out);
  return Buffer.concat(chunks);
}

/**
 * A scheduled report as a file: the very flows and writers of GET /api/reports/competencematrix and
 * /api/reports/compliance with format=csv|xlsx, with `user`'s rights (403/404 as there), dated today in
 * the tenant's zone. `check` alone is the access and parameter check (creation, update).
 */
@injectable()
export class ScheduledReport {
  constructor(
    @inject(CompetenceMatrixFlow) private readonly matrix: CompetenceMatrixFlow,
    @inject(ComplianceSummaryFlow) private readonly compliance: ComplianceSummaryFlow,
    @inject(TenantClock) private readonly clock: TenantClock,
  ) {}

  async check(user: Principal, report: 'competencematrix' | 'compliance', params: ScheduledReportParams): Promise<void> {
    await this.matrix.scope(user, report === 'compliance' ? { organisation_id: params.organisation_id, recursive: params.recursive ?? true } : params);
  }

  async file(user: Principal, report: 'competencematrix' | 'compliance', format: 'csv' | 'xlsx', params: ScheduledReportParams): Promise<ReportFile> {
    const date = this.clock.today();
    let content: Buffer;
    if (report === 'competencematrix') {
      const scope = await this.matrix.scope(user, { ...params, date });
      const columns = await this.matrix.columns(scope);
      content = await collect((out) => (format === 'csv' ? matrixCsv : matrixXlsx)(out, columns, this.matrix.batches(scope)));
    } else {
      const rows = await this.compliance.summary(user, {
        organisation_id: params.organisation_id,
        recursive: params.recursive,
        expiring_within_days: params.expiring_within_days,
        date,
      });
      content = await collect((out) => (format === 'csv' ? complianceCsv(out, rows) : complianceXlsx(out, rows)));
    }
    return { filename: `${report}-${date}.${format}`, contentType: FILE_TYPES[format], content, date };
  }
}
