import { z } from 'zod';
import { IMPORT_TYPES, type ImportRow } from '../../tenancy';
import type { RunOutcome } from './import-runner';

const RowProblemView = z.object({
  row: z.number().int().describe('the row as a spreadsheet numbers it: the header is row 1'),
  column: z.string().nullable().describe('the column the problem is in (null: the row as a whole)'),
  errorcode: z
    .number()
    .int()
    .describe('what the API would answer for the same data: 419 missing, 420 malformed, 403, 404, 409, or 500 for an unexpected failure'),
  message: z.string().describe('the text the API would answer'),
});

export const ImportView = z
  .object({
    import_id: z.string().nullable().describe('null for a dry run'),
    type: z.enum(IMPORT_TYPES),
    state: z.enum(['dry_run', 'queued', 'running', 'finished', 'failed']),
    file_name: z.string(),
    file_format: z.enum(['csv', 'xlsx']),
    deactivate_missing: z.boolean(),
    rows_total: z.number().int(),
    rows_done: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    failed: z.number().int().describe('rows not imported'),
    deactivated: z.number().int().describe('persons deactivated by deactivate_missing'),
    failed_rows: z.array(RowProblemView).describe('the problems of the failed rows (several per row possible), at most the first 1,000'),
    error: z.string().nullable().describe('why a failed import stopped'),
    created_by: z.string().nullable(),
    created_at: z.string().nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'Import' });
export type ImportView = z.infer<typeof ImportView>;

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function presentImport(r: ImportRow, createdBy: string | null): ImportView {
  return {
    import_id: r.id,
    type: r.type,
    state: r.state,
    file_name: r.file_name,
    file_format: r.file_format,
    deactivate_missing: r.options?.deactivate_missing === true,
    rows_total: r.rows_total,
    rows_done: r.rows_done,
    created: r.created,
    updated: r.updated,
    unchanged: r.unchanged,
    failed: r.failed,
    deactivated: r.deactivated,
    failed_rows: r.failures,
    error: r.error,
    created_by: createdBy,
    created_at: iso(r.created_at),
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
  };
}

/** A dry run's report: what a real run would do with each row; nothing written. */
export function presentDryRun(
  d: { type: ImportView['type']; file_name: string; file_format: ImportView['file_format']; deactivate_missing: boolean },
  o: RunOutcome,
  createdBy: string,
): ImportView {
  return {
    import_id: null,
    ...d,
    state: 'dry_run',
    rows_total: o.rows,
    rows_done: o.rows,
    created: o.created,
    updated: o.updated,
    unchanged: o.unchanged,
    failed: o.failed,
    deactivated: 0,
    failed_rows: o.problems,
    error: null,
    created_by: createdBy,
    created_at: null,
    started_at: null,
    finished_at: null,
  };
}
