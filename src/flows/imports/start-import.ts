import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit';
import { FILE_STORE, type FileStore } from '../../platform/files/file-store';
import { QueueRegistry } from '../../platform/queue/queue-registry';
import { IMPORT_JOB, IMPORT_QUEUE, ImportJobData, ImportsRepository, type ImportType } from '../../tenancy';
import { ImportRunner, type ImportFile } from './import-runner';
import { presentDryRun, presentImport, type ImportView } from './import-view';
import { formatOf } from './table-file';
import { DeactivateMissingPersons } from './deactivate-missing';
import type { ImportCaller } from './import-rows';
import type { PersonImportRows } from './person-rows';

export interface ImportRequest {
  type: ImportType;
  fileName: string;
  data: Buffer;
  dryRun: boolean;
  deactivateMissing: boolean;
}

/** The job's BullMQ attempts: a crash mid-way is resumed from the last batch written. */
const JOB_ATTEMPTS = 3;

/**
 * POST /api/imports. A dry run checks every row at once and answers the report (nothing written).
 * Otherwise the file is checked as far as the header and row count, kept in the file store, the
 * import row and its import.started audit entry written in one transaction, and the job queued
 * (src/flows/imports/run-import.ts does the rest).
 */
@injectable()
export class StartImportFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(ImportRunner) private readonly runner: ImportRunner,
    @inject(ImportsRepository) private readonly imports: ImportsRepository,
    @inject(QueueRegistry) private readonly queues: QueueRegistry,
    @inject(FILE_STORE) private readonly files: FileStore,
    @inject(DeactivateMissingPersons) private readonly deactivation: DeactivateMissingPersons,
  ) {}

  async dryRun(caller: ImportCaller, req: ImportRequest): Promise<ImportView> {
    this.checkOptions(req);
    const file: ImportFile = { type: req.type, data: req.data, format: formatOf(req.fileName, req.data) };
    const outcome = await this.runner.run(file, caller);
    const view = presentDryRun(
      { type: req.type, file_name: req.fileName, file_format: file.format, deactivate_missing: req.deactivateMissing },
      outcome,
      caller.user.userName,
    );
    if (req.deactivateMissing) view.deactivated = await this.deactivation.count(caller.user, (outcome.handler as PersonImportRows).named);
    return view;
  }

  async start(caller: ImportCaller, req: ImportRequest): Promise<ImportView> {
    this.checkOptions(req);
    const file: ImportFile = { type: req.type, data: req.data, format: formatOf(req.fileName, req.data) };
    const rows = await this.runner.count(file);
    const key = `import_${randomUUID().replace(/-/g, '')}`;
    await this.files.put(this.tenant.schema, key, req.data);
    const row = await this.uow.run(async (tx) => {
      const created = await tx.get(ImportsRepository).create({
        type: req.type,
        options: { deactivate_missing: req.deactivateMissing },
        file_name: req.fileName,
        file_format: file.format,
        file_key: key,
        created_by: caller.user.personId,
        rows_total: rows,
      });
      await tx.get(AuditTrail).record({
        type: 'import.started',
        actor: caller.user.userName,
        subject: created.id,
        details: { type: req.type, rows, file_name: req.fileName, deactivate_missing: req.deactivateMissing },
      });
      return created;
    });
    try {
      const data: ImportJobData = ImportJobData.parse({ tenantId: this.tenant.id, importId: row.id });
      await this.queues.get(IMPORT_QUEUE.name).add(IMPORT_JOB, data, {
        jobId: row.id,
        attempts: JOB_ATTEMPTS,
        backoff: { type: 'capped-exponential' },
        removeOnComplete: { count: 1000 },
        removeOnFail: { count: 1000 },
      });
    } catch (err) {
      caller.log.error({ err, importId: row.id }, 'an import could not be queued');
      await this.imports.finished(row.id, { state: 'failed', error: 'the import could not be queued; send the file again' });
      await this.files.remove(this.tenant.schema, key).catch(() => undefined);
      throw ApiError.unavailable('the import could not be queued; try again shortly');
    }
    return presentImport(row, caller.user.userName);
  }

  private checkOptions(req: ImportRequest): void {
    if (!req.deactivateMissing) return;
    if (req.type !== 'persons') throw ApiError.malformed('deactivate_missing', 'applies to persons imports only');
  }
}
