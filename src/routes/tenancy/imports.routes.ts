import busboy from 'busboy';
import { z } from 'zod';
import { COSTS, defineRoute, type RouteContext } from '../../platform/http/define-route';
import { p, pagingShape, paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { ENV } from '../../platform/tokens';
import { zodErrorToApiError } from '../../platform/http/zod-to-api-error';
import { policies, PersonDirectory } from '../../people';
import { IMPORT_TYPES, ImportsRepository, type ImportRow } from '../../tenancy';
import { StartImportFlow } from '../../flows/imports/start-import';
import { ImportView, presentImport } from '../../flows/imports/import-view';
import { IMPORT_COLUMNS, templateCsv } from '../../flows/imports/import-columns';

const type = z.enum(IMPORT_TYPES, { error: `must be one of ${IMPORT_TYPES.join(', ')}` });
const Options = z.object({ type, dry_run: p.bool().optional(), deactivate_missing: p.bool().optional() });
/** The query's parameters: each may come as a multipart field instead (before the file part). */
const Query = Options.partial({ type: true });

const TYPES_TEXT = IMPORT_TYPES.map((t) => `${IMPORT_COLUMNS[t].about} Columns: ${IMPORT_COLUMNS[t].columns.join(', ')}.`).join(' ');

interface Upload {
  fields: Record<string, string>;
  file?: { name: string; data: Buffer };
}

/** The multipart body: one file part named file, at most `maxBytes` (413 beyond), and a few short fields. */
function readUpload(ctx: RouteContext, maxBytes: number): Promise<Upload> {
  const body = ctx.body.stream(['multipart/form-data']);
  if (!body) throw ApiError.missing('file');
  return new Promise<Upload>((resolve, reject) => {
    const upload: Upload = { fields: {} };
    let problem: ApiError | undefined;
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.headers, limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 1024, parts: 12 } });
    } catch {
      throw ApiError.malformed('file', 'the multipart body cannot be read');
    }
    parser.on('field', (name, value) => (upload.fields[name] = value));
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || upload.file) {
        problem ??= ApiError.malformed(name, 'send exactly one file, in the part named file');
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => {
        problem = new ApiError(413, `file too large: an import takes at most ${maxBytes} bytes`, { limit_bytes: maxBytes });
        chunks.length = 0;
      });
      stream.on('end', () => {
        // eslint-disable-next-line no-control-regex -- control characters are replaced in a file name
        if (!problem) upload.file = { name: (info.filename || 'import').replace(/[\u0000-\u001f/\\]/g, '_').slice(0, 255), data: Buffer.concat(chunks) };
      });
    });
    parser.on('error', () => reject(ApiError.malformed('file', 'the multipart body cannot be read')));
    parser.on('close', () => (problem ? reject(problem) : resolve(upload)));
    body.pipe(parser);
  });
}

export const importRoutes = [
  defineRoute({
    method: 'post',
    path: '/imports',
    cost: COSTS.import,
    access: policies.superuser('import'),
    resource: 'imports',
    summary: 'Bulk import of persons, organisations, managers, role assignments or registrations from a CSV or XLSX file. Security: superuser',
    description:
      "multipart/form-data: the file in the part named file (CSV or XLSX, told by the name's ending or, without one, by its content), type, and " +
      'optionally dry_run=1 and deactivate_missing=1 (in the query string or as fields before the file). The first row names the columns with the ' +
      "API's own field names (any order and case; GET /api/imports/templates/[type] gives them with a sample row); an unknown or repeated column " +
      'is a 420, a file without the columns its rows are matched by a 419, before any row is read. XLSX: the first worksheet. CSV: UTF-8 (else read ' +
      'as Windows-1252), comma, semicolon or tab as the header uses. Every cell is text: a formula (=, +, -, @) is stored as its text, never ' +
      'evaluated; a leading apostrophe before one of those is dropped. Rows are checked and written by the same rules as the API (same 419/420/404 ' +
      'texts, same audit entries and webhooks: person.created, person.updated, personcompetence.registered). ' +
      'dry_run=1 answers 200 with the report at once (what each row would do, the failed rows with row number, column and the text) and writes nothing. ' +
      'Otherwise 202 with the import (state queued): a background job writes the rows in batches of IMPORT_BATCH_ROWS (default 500), each batch one ' +
      'transaction (a batch that fails is written row by row, so one bad row costs only itself); GET /api/imports/[import_id] shows rows_done of ' +
      'rows_total, then the counts and the failed rows. Importing the same file again changes nothing (all unchanged). deactivate_missing=1 ' +
      '(persons only): afterwards every active person the file does not name (by user_name or extern_person_id, failed rows included) ' +
      'is deactivated as PUT /api/persons/[user_name]/deactivate does it, never the caller; a dry run gives their number as deactivated. Limits: IMPORT_MAX_BYTES (default 20 MiB) and IMPORT_MAX_ROWS data rows (default 100,000); larger: 413. ' +
      'An Idempotency-Key covers the query parameters, not the file. Audited: import.started, import.finished. ' +
      TYPES_TEXT,
    errors: [413],
    input: Query,
    body: {
      description: 'the file and the options',
      content: {
        'multipart/form-data': z.object({
          file: z.string().meta({ format: 'binary' }).describe('the CSV or XLSX file'),
          type: type.optional(),
          dry_run: z.string().optional().describe('1: check only, answer the report'),
          deactivate_missing: z.string().optional().describe('1: deactivate active persons the file does not name (persons)'),
        }),
      },
    },
    accepted: 'the import is queued (without dry_run); follow it with GET /api/imports/[import_id]',
    output: ImportView,
    async handler(ctx, query) {
      const upload = await readUpload(ctx, ctx.resolve(ENV).IMPORT_MAX_BYTES);
      const merged = { ...upload.fields, ...Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) };
      const parsed = Options.safeParse(merged);
      if (!parsed.success) throw zodErrorToApiError(parsed.error, merged);
      if (!upload.file) throw ApiError.missing('file');
      const request = {
        type: parsed.data.type,
        fileName: upload.file.name,
        data: upload.file.data,
        dryRun: parsed.data.dry_run ?? false,
        deactivateMissing: parsed.data.deactivate_missing ?? false,
      };
      const flow = ctx.resolve(StartImportFlow);
      const caller = { user: ctx.user, log: ctx.log };
      if (request.dryRun) {
        const report = await flow.dryRun(caller, request);
        return { items: [report], message: `dry run: ${report.rows_total} rows, ${report.failed} would fail; nothing was written` };
      }
      return { status: 202, items: [await flow.start(caller, request)], message: 'import queued' };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/imports/templates/:type',
    access: policies.superuser('download import templates'),
    resource: 'imports',
    summary: 'An empty import file (CSV) of a type: the header with every column and one sample row. Security: superuser',
    description:
      'UTF-8 with BOM, comma-separated. Cells a spreadsheet would read as a formula (a mobile +47...) start with an apostrophe, which the import drops again. ' +
      'Delete the sample row, or change it, before importing. ' +
      TYPES_TEXT,
    input: z.object({ type }),
    answer: { description: 'the template (attachment <type>-import-template.csv)', content: { 'text/csv': 'binary' } },
    async handler(_ctx, input) {
      const csv = `\uFEFF${templateCsv(input.type)}`;
      return {
        contentType: 'text/csv; charset=utf-8',
        headers: { 'Content-Disposition': `attachment; filename="${input.type}-import-template.csv"` },
        stream: async (out) => void out.end(csv),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/imports/:import_id',
    access: policies.superuser('see imports'),
    resource: 'imports',
    summary: 'An import: its progress (rows_done of rows_total, state), then its counts and failed rows. Security: superuser',
    description: "state queued, running, finished or failed (error says why). Unknown id, or another tenant's: 404.",
    input: z.object({ import_id: z.string().max(100) }),
    output: ImportView,
    async handler(ctx, input) {
      const row = await ctx.resolve(ImportsRepository).find(input.import_id);
      if (!row) throw ApiError.notFound(`import ${input.import_id}`);
      return { items: await present(ctx, [row]) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/imports',
    access: policies.superuser('see imports'),
    resource: 'imports',
    summary: 'The latest imports first (paging). Security: superuser',
    input: z.object({ ...pagingShape }),
    output: ImportView,
    async handler(ctx, input) {
      return { items: await present(ctx, await ctx.resolve(ImportsRepository).list(paging(input))) };
    },
  }),
];

async function present(ctx: RouteContext, rows: ImportRow[]) {
  const names = await ctx.resolve(PersonDirectory).userNames(rows.map((r) => r.created_by));
  return rows.map((r) => presentImport(r, names.get(r.created_by) ?? null));
}
