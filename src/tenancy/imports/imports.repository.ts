import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

export const IMPORT_TYPES = ['persons', 'organisations', 'managers', 'role_assignments', 'registrations'] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];
export type ImportState = 'queued' | 'running' | 'finished' | 'failed';
export type FileFormat = 'csv' | 'xlsx';

/** One problem of one row of an import's file: the row's number as a spreadsheet shows it (the header is row 1). */
export interface RowProblem {
  row: number;
  column: string | null;
  errorcode: number;
  message: string;
}

/** What a batch adds to an import's counts. */
export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

export interface ImportRow extends ImportCounts {
  id: string;
  type: ImportType;
  state: ImportState;
  options: { deactivate_missing?: boolean };
  file_name: string;
  file_format: FileFormat;
  file_key: string | null;
  created_by: number;
  rows_total: number;
  rows_done: number;
  deactivated: number;
  failures: RowProblem[];
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** The failed rows' problems kept per import; the counts go on beyond it. */
export const MAX_KEPT_FAILURES = 1000;

/**
 * Bulk imports of a tenant (`imports`): created when the file is taken, moved on batch by batch by
 * the import job (got by `tx.get(ImportsRepository)`, a batch's progress commits with its rows).
 */
@injectable()
export class ImportsRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async create(row: Pick<ImportRow, 'type' | 'options' | 'file_name' | 'file_format' | 'file_key' | 'created_by' | 'rows_total'>): Promise<ImportRow> {
    const [created] = await this.db
      .table('imports')
      .insert({ ...row, id: randomUUID(), options: JSON.stringify(row.options) })
      .returning('*');
    return created;
  }

  find(id: string): Promise<ImportRow | undefined> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return Promise.resolve(undefined);
    return this.db.table('imports').where({ id }).first();
  }

  /** The latest imports first. */
  list(page: { limit: number; offset: number }): Promise<ImportRow[]> {
    return this.db
      .table('imports')
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }])
      .limit(page.limit)
      .offset(page.offset);
  }

  /** The job takes it up (again, after a crash: its progress stays). */
  async started(id: string): Promise<void> {
    await this.db
      .table('imports')
      .where({ id })
      .update({ state: 'running', started_at: this.db.raw('coalesce(started_at, now())') });
  }

  /** A batch's rows are written: its counts and problems are added (the problems up to MAX_KEPT_FAILURES in all). */
  async progressed(id: string, rowsDone: number, counts: ImportCounts, problems: readonly RowProblem[]): Promise<void> {
    await this.db
      .table('imports')
      .where({ id })
      .update({
        rows_done: rowsDone,
        created: this.db.raw('created + ?', [counts.created]),
        updated: this.db.raw('updated + ?', [counts.updated]),
        unchanged: this.db.raw('unchanged + ?', [counts.unchanged]),
        failed: this.db.raw('failed + ?', [counts.failed]),
        failures: this.db.raw(
          `case when jsonb_array_length(failures) >= ? then failures
                else failures || coalesce((select jsonb_agg(e) from (select e from jsonb_array_elements(?::jsonb) e limit ? - jsonb_array_length(failures)) s), '[]'::jsonb) end`,
          [MAX_KEPT_FAILURES, JSON.stringify(problems), MAX_KEPT_FAILURES],
        ),
      });
  }

  async finished(id: string, outcome: { state: 'finished' | 'failed'; deactivated?: number; error?: string | null }): Promise<void> {
    await this.db
      .table('imports')
      .where({ id })
      .update({ state: outcome.state, deactivated: outcome.deactivated ?? 0, error: outcome.error ?? null, file_key: null, finished_at: this.db.fn.now() });
  }
}
