import { inject, injectable, type DependencyContainer } from 'tsyringe';
import { ENV, TENANT_SCOPE } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import { ApiError } from '../../platform/errors/api-error';
import { UnitOfWork, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { ImportsRepository, MAX_KEPT_FAILURES, type FileFormat, type ImportCounts, type ImportType, type RowProblem } from '../../tenancy';
import { cellsOf, readHeader } from './import-columns';
import { problemOf, type Checked, type ImportCaller, type ImportLine, type ImportRows } from './import-rows';
import { tableLines } from './table-file';
import { PersonImportRows } from './person-rows';
import { OrganisationImportRows } from './organisation-rows';
import { ManagerImportRows, RoleAssignmentImportRows } from './link-rows';
import { RegistrationImportRows } from './registration-rows';

const ROWS: Record<ImportType, new (...args: any[]) => ImportRows> = {
  persons: PersonImportRows,
  organisations: OrganisationImportRows,
  managers: ManagerImportRows,
  role_assignments: RoleAssignmentImportRows,
  registrations: RegistrationImportRows,
};

export interface ImportFile {
  type: ImportType;
  data: Buffer;
  format: FileFormat;
}

export interface RunOutcome extends ImportCounts {
  rows: number;
  /** The problems of the failed rows (dry run: the first MAX_KEPT_FAILURES; a real run keeps them in its row). */
  problems: RowProblem[];
  /** The type's rows, for what comes after the last line (deactivate_missing). */
  handler: ImportRows;
}

/** A real run: where its progress goes, and how many data rows an earlier attempt has already written. */
export interface RealRun {
  importId: string;
  resumeAt: number;
}

const zero = (): ImportCounts => ({ created: 0, updated: 0, unchanged: 0, failed: 0 });

/**
 * Reads an import's file line by line (streaming: never the whole table in memory) in batches of
 * IMPORT_BATCH_ROWS. Each batch is checked (ImportRows.check: reads only), then, unless a dry run,
 * written in one transaction together with the import's progress; if that transaction fails (a row
 * the check let through fails on writing), each of its rows is written in a transaction of its own,
 * so one bad row costs only itself. On a later attempt (the job retried after a crash) the batches
 * already written are checked again (that rebuilds what the check keeps) but not written or counted.
 */
@injectable()
export class ImportRunner {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TENANT_SCOPE) private readonly scope: DependencyContainer,
    @inject(ENV) private readonly env: Env,
  ) {}

  /** Checks the header and counts the data rows: 413 beyond IMPORT_MAX_ROWS, 420 for a file that has no header or cannot be read. */
  async count(file: ImportFile): Promise<number> {
    let header = false;
    let rows = 0;
    for await (const l of tableLines(file.data, file.format)) {
      if (!header) {
        readHeader(file.type, l.values);
        header = true;
      } else if (++rows > this.env.IMPORT_MAX_ROWS) {
        throw tooManyRows(this.env.IMPORT_MAX_ROWS);
      }
    }
    if (!header) throw ApiError.malformed('file', 'the file is empty: the first row names the columns');
    return rows;
  }

  async run(file: ImportFile, caller: ImportCaller, real?: RealRun): Promise<RunOutcome> {
    const handler = this.scope.resolve(ROWS[file.type]);
    const outcome: RunOutcome = { ...zero(), rows: 0, problems: [], handler };
    let header: string[] | undefined;
    let batch: ImportLine[] = [];
    const flush = async () => {
      const checked = await handler.check(batch);
      if (!real) this.tally(outcome, checked);
      else if (outcome.rows > real.resumeAt) await this.write(real.importId, outcome.rows, checked, caller);
      batch = [];
    };
    for await (const l of tableLines(file.data, file.format)) {
      if (!header) {
        header = readHeader(file.type, l.values);
        handler.start(caller, header);
        continue;
      }
      if (++outcome.rows > this.env.IMPORT_MAX_ROWS) throw tooManyRows(this.env.IMPORT_MAX_ROWS);
      batch.push({ line: l.line, cells: cellsOf(header, l.values) });
      if (batch.length >= this.env.IMPORT_BATCH_ROWS) await flush();
    }
    if (!header) throw ApiError.malformed('file', 'the file is empty: the first row names the columns');
    if (batch.length) await flush();
    return outcome;
  }

  private tally(outcome: RunOutcome, checked: readonly Checked[]): void {
    for (const c of checked) {
      if ('problems' in c) {
        outcome.failed++;
        for (const p of c.problems) if (outcome.problems.length < MAX_KEPT_FAILURES) outcome.problems.push(p);
      } else {
        outcome[c.outcome]++;
      }
    }
  }

  /** One transaction for the batch and its progress; if it fails, a transaction per row. */
  private async write(importId: string, rowsDone: number, checked: readonly Checked[], caller: ImportCaller): Promise<void> {
    const counts = zero();
    const problems: RowProblem[] = [];
    const done = (tx: Transaction) => tx.get(ImportsRepository).progressed(importId, rowsDone, counts, problems);
    const count = (c: Checked) => {
      if ('problems' in c) {
        counts.failed++;
        problems.push(...c.problems);
      } else counts[c.outcome]++;
    };
    try {
      await this.uow.run(async (tx) => {
        for (const c of checked) if ('write' in c && c.write) await c.write(tx);
        checked.forEach(count);
        await done(tx);
      });
      return;
    } catch (err) {
      caller.log.info({ err, importId }, 'an import batch failed; writing its rows one by one');
    }
    Object.assign(counts, zero());
    problems.length = 0;
    for (const c of checked) {
      if (!('write' in c) || !c.write) {
        count(c);
        continue;
      }
      const write = c.write;
      try {
        await this.uow.run((tx) => write(tx));
        count(c);
      } catch (err) {
        count({ line: c.line, problems: [this.writeProblem(c.line, err, caller)] });
      }
    }
    await this.uow.run(done);
  }

  private writeProblem(line: number, err: unknown, caller: ImportCaller): RowProblem {
    try {
      return problemOf(line, err);
    } catch {
      caller.log.warn({ err, line }, 'an import row failed unexpectedly');
      return { row: line, column: null, errorcode: 500, message: 'unexpected error while writing the row; it was not imported' };
    }
  }
}

export function tooManyRows(max: number): ApiError {
  return new ApiError(413, `too many rows: an import takes at most ${max} data rows`, { limit_rows: max });
}
