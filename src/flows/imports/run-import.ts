import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER, TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { AuditTrail } from '../../platform/audit';
import { FILE_STORE, type FileStore } from '../../platform/files/file-store';
import { defineJob, PermanentJobError, type JobAttempt } from '../../platform/queue/job-definition';
import { openTenantScope } from '../../platform/tenant-scope/request-scope';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import { IMPORT_JOB, ImportJobData, ImportsRepository, type ImportRow } from '../../tenancy';
import { PersonDirectory } from '../../people';
import { PrincipalLoader } from '../identity/principal-loader';
import { ImportRunner } from './import-runner';
import { DeactivateMissingPersons } from './deactivate-missing';
import type { PersonImportRows } from './person-rows';

/** Why an import stopped, for its `error`: a row-independent failure (the file gone, the importer no longer a superuser). */
class ImportStopped extends PermanentJobError {}

/**
 * The import job, in the tenant's scope: the caller is the importer as they are now (a superuser,
 * else the import fails), the file comes from the file store, the rows go through ImportRunner
 * batch by batch (GET /api/imports/[import_id] shows rows_done of rows_total), then
 * deactivate_missing, then the outcome and its import.finished audit entry; the file is removed.
 * A failure is retried (from the last batch written) until the job's attempts run out; then the
 * import is failed with the reason.
 */
@injectable()
export class RunImportFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(ImportsRepository) private readonly imports: ImportsRepository,
    @inject(ImportRunner) private readonly runner: ImportRunner,
    @inject(PrincipalLoader) private readonly principals: PrincipalLoader,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(FILE_STORE) private readonly files: FileStore,
    @inject(DeactivateMissingPersons) private readonly deactivation: DeactivateMissingPersons,
  ) {}

  async run(importId: string, attempt: JobAttempt): Promise<void> {
    const row = await this.imports.find(importId);
    if (!row || row.state === 'finished' || row.state === 'failed') return;
    const log = this.logger.child({ tenant: this.tenant.slug, importId });
    try {
      await this.work(row, log);
    } catch (err) {
      const last = err instanceof PermanentJobError || attempt.number >= attempt.max;
      log.warn({ err, attempt: attempt.number }, last ? 'import failed' : 'import attempt failed; it will be retried');
      if (last) {
        await this.end(row, { state: 'failed', error: err instanceof ImportStopped ? err.message : 'the import stopped on an unexpected error' }).catch(
          async (endErr: unknown) => {
            log.error({ err: endErr }, 'the end of a failed import was not recorded in full');
            await this.imports.finished(row.id, { state: 'failed', error: 'the import stopped on an unexpected error' });
          },
        );
      }
      throw err;
    }
  }

  private async work(row: ImportRow, log: Logger): Promise<void> {
    const user = await this.principals.byId(row.created_by, 'session');
    if (!user?.superuser) throw new ImportStopped('the person who started the import is no longer a superuser');
    const data = row.file_key ? await this.files.get(this.tenant.schema, row.file_key) : null;
    if (!data) throw new ImportStopped('the file of the import is no longer there');
    await this.imports.started(row.id);
    const caller = { user, log };
    const outcome = await this.runner.run({ type: row.type, data, format: row.file_format }, caller, { importId: row.id, resumeAt: row.rows_done });
    const deactivated = row.options?.deactivate_missing ? await this.deactivation.deactivate(user, (outcome.handler as PersonImportRows).named) : 0;
    await this.end(row, { state: 'finished', deactivated });
  }

  private async end(row: ImportRow, outcome: { state: 'finished' | 'failed'; deactivated?: number; error?: string }): Promise<void> {
    const actor = (await this.persons.userNames([row.created_by])).get(row.created_by) ?? `person ${row.created_by}`;
    await this.uow.run(async (tx) => {
      const imports = tx.get(ImportsRepository);
      await imports.finished(row.id, outcome);
      const now = await imports.find(row.id);
      await tx.get(AuditTrail).record({
        type: 'import.finished',
        actor,
        subject: row.id,
        details: {
          type: row.type,
          state: outcome.state,
          rows: now?.rows_done,
          created: now?.created,
          updated: now?.updated,
          unchanged: now?.unchanged,
          failed: now?.failed,
          deactivated: outcome.deactivated ?? 0,
          error: outcome.error ?? null,
        },
      });
    });
    if (row.file_key)
      await this.files.remove(this.tenant.schema, row.file_key).catch((err: unknown) => this.logger.warn({ err }, 'the file of an import was not removed'));
  }
}

/** One import, run in its tenant's scope; the job carries the tenant and the import's id only. */
export const runImportJob = defineJob(IMPORT_JOB, ImportJobData, async (root, data, attempt) => {
  const tenant = await root.resolve(TenantResolver).byTenantId(data.tenantId);
  if (!tenant) throw new PermanentJobError(`tenant ${data.tenantId} no longer exists`);
  await openTenantScope(root, tenant).resolve(RunImportFlow).run(data.importId, attempt);
});
