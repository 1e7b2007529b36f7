import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { AuditTrail } from '../../platform/audit';

/**
 * A report leaving as a file (CSV, XLSX) carries many persons' data out of the product: the
 * security event log records who took which (`report.exported`), before the first byte is sent.
 */
@injectable()
export class ReportExportAudit {
  constructor(@inject(UnitOfWork) private readonly uow: UnitOfWork) {}

  async record(user: Principal, report: 'competencematrix' | 'compliance', format: string, parameters: Record<string, unknown>): Promise<void> {
    const given = Object.fromEntries(Object.entries(parameters).filter(([, v]) => v !== undefined));
    await this.uow.run((tx) => tx.get(AuditTrail).record({ type: 'report.exported', actor: user.userName, subject: report, details: { format, ...given } }));
  }
}
