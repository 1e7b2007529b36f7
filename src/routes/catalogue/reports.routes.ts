import type { Writable } from 'node:stream';
import { z } from 'zod';
import { COSTS, defineRoute, type RouteContext } from '../../platform/http/define-route';
import { p, paging, pagingShape, fieldsShape } from '../../platform/http/param-types';
import { TenantClock, type DateParam } from '../../platform/time/tenant-clock';
import { policies } from '../../people';
import { CompetenceMatrixFlow, DEFAULT_EXPIRING_WITHIN_DAYS } from '../../flows/reports/competence-reports';
import { ComplianceSummaryFlow } from '../../flows/reports/compliance-summary';
import { ReportExportAudit } from '../../flows/reports/report-export-audit';
import { FILE_TYPES, complianceCsv, complianceXlsx, matrixCsv, matrixXlsx } from '../../flows/reports/report-files';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const STATUSES = ['passed', 'expiring', 'expired', 'missing'] as const;

const MatrixCellView = z.object({
  competence_id: z.number().int(),
  title: z.string(),
  mandatory: z.boolean().describe('mandatory for one of the roles; false: optional (include_optional=1 only)'),
  status: z
    .enum(STATUSES)
    .describe(
      'passed: held on date; expiring: held, valid_until within expiring_within_days after date; expired and missing: what GET /api/personcompetences?state=missing lists (reason expired, or any other reason)',
    ),
  date: day.nullable().describe('date of the current registration; null when there is none'),
  valid_until: day.nullable().describe('last valid day of the current registration; null when it does not expire or there is none'),
});

export const MatrixRowView = z
  .object({
    user_name: z.string(),
    firstname: z.string().nullable(),
    lastname: z.string().nullable(),
    organisation_id: z.number().int().nullable(),
    organisation_name: z.string().nullable(),
    compliant: z.boolean().describe('every mandatory cell is passed or expiring'),
    competences: z.array(MatrixCellView).describe('one cell per required competence, sorted by title'),
  })
  .meta({ id: 'CompetenceMatrixRow' });

const counts = {
  required: z.number().int().describe('mandatory (person, competence) pairs'),
  passed: z.number().int(),
  expiring: z.number().int(),
  expired: z.number().int(),
  missing: z.number().int(),
  percent_compliant: z.number().int().min(0).max(100).describe('floor(100 * (passed + expiring) / required); 100 when nothing is required'),
};

export const ComplianceRowView = z
  .object({
    organisation_id: z.number().int(),
    organisation_name: z.string(),
    parent_id: z.number().int().nullable().describe("the organisation above it within the report; null for the report's organisation"),
    date: day.describe('the day the states are taken on'),
    persons: z.number().int().describe('active persons of the organisation (and, recursive, of every unit below it)'),
    compliant_persons: z.number().int().describe('of them, holding every mandatory competence'),
    ...counts,
    by_competence: z
      .array(z.object({ competence_id: z.number().int(), title: z.string(), ...counts }))
      .describe('the same counts per required competence, sorted by title'),
  })
  .meta({ id: 'ComplianceRow' });

const common = {
  date: p.when().optional().describe("the day the states are taken on (tenant's time zone), default today; a later day forecasts"),
  expiring_within_days: p
    .int()
    .pipe(z.number().min(0, 'must be 0-3650').max(3650, 'must be 0-3650'))
    .optional()
    .describe(`default ${DEFAULT_EXPIRING_WITHIN_DAYS}`),
  format: z
    .enum(['json', 'csv', 'xlsx'], { message: 'must be json, csv or xlsx' })
    .optional()
    .describe('json (default, the envelope), csv or xlsx (a file, attachment)'),
};

const envelope = (resource: string, item: z.ZodType) => z.object({ valid: z.literal(true), message: z.string(), [resource]: z.array(item) });

const answer = (resource: string, item: z.ZodType, file: string) => ({
  description: `format=json: the envelope with ${resource}; format=csv or xlsx: the file (Content-Disposition: attachment; filename="${file}-<date>.csv|xlsx")`,
  content: { 'application/json': envelope(resource, item), 'text/csv': 'binary' as const, [FILE_TYPES.xlsx]: 'binary' as const },
});

const dayOf = (ctx: RouteContext, when: DateParam | undefined) => (when === undefined ? undefined : (when.day ?? ctx.resolve(TenantClock).dayOf(when.at)));

function download(name: string, format: 'csv' | 'xlsx', write: (out: Writable) => Promise<void>) {
  return {
    contentType: FILE_TYPES[format],
    headers: { 'Content-Disposition': `attachment; filename="${name}.${format}"`, 'Cache-Control': 'no-store' },
    stream: write,
  };
}

export const reportRoutes = [
  defineRoute({
    method: 'get',
    path: '/reports/competencematrix',
    cost: COSTS.report,
    access: policies.manager('see the competence matrix'),
    resource: 'competencematrix',
    summary:
      'Competence matrix: one row per person, one cell per required competence (JSON, CSV or XLSX). Security: superuser; manager for the organisations they manage',
    description:
      "A cell is what GET /api/personcompetences says for that person on `date`: passed or expiring when held, expired or missing when it is on the person's state=missing list. " +
      "Required = requirements of the person's roles on active top-level competences (list items of GET /api/personcompetences), mandatory ones unless include_optional=1. " +
      'Persons: the active persons of organisation_id (recursive=1: and every unit below), as GET /api/persons; or those named by user_names (any state; both: the named ones of the organisation). ' +
      'A manager asking for an organisation or a person outside the subtrees they manage: 403. role_ids: only holders of any of these roles, and the cells are the requirements of these roles ' +
      '(as GET /api/personcompetences?role_ids). competence_ids: only these competences, and only persons who require one of them. ' +
      'Sorted by last name, first name; paging as lists (JSON only). format=csv: UTF-8 with BOM, one column per competence ("<title> [<id>]"), a cell "<status>[ <valid_until>]", empty when not required; ' +
      'format=xlsx: the same, a dated cell as a real date shown with its status, status fill colours, frozen header and names. Text that would start a formula (= + - @ tab CR) starts with an apostrophe.',
    input: z.object({
      organisation_id: p.id().optional().describe('required unless user_names'),
      recursive: p.bool().optional().describe('with organisation_id: every unit below it too (default 0)'),
      user_names: p.stringList().optional(),
      role_ids: p.idList().optional(),
      competence_ids: p.idList().optional(),
      include_optional: p.bool().optional().describe('1: optional requirements as cells too (mandatory: false); they do not affect compliant'),
      ...common,
      ...pagingShape,
      ...fieldsShape,
    }),
    output: MatrixRowView,
    answer: answer('competencematrix', MatrixRowView, 'competencematrix'),
    async handler(ctx, input) {
      const flow = ctx.resolve(CompetenceMatrixFlow);
      const scope = await flow.scope(ctx.user, { ...input, date: dayOf(ctx, input.date) });
      const format = input.format ?? 'json';
      if (format === 'json') return { items: await flow.page(scope, paging(input)) };
      const columns = await flow.columns(scope);
      const { format: _f, limit, offset, start, fields, ...given } = input;
      await ctx.resolve(ReportExportAudit).record(ctx.user, 'competencematrix', format, { ...given, date: scope.query.day });
      const write = format === 'csv' ? matrixCsv : matrixXlsx;
      return download(`competencematrix-${scope.query.day}`, format, (out) => write(out, columns, flow.batches(scope)));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/reports/compliance',
    cost: COSTS.report,
    access: policies.organisationManager('organisation_id', 'see the compliance of this organisation'),
    resource: 'compliance',
    summary:
      "Compliance summary: per organisation, how many mandatory competences are passed, expiring, expired or missing (JSON, CSV or XLSX). Security: superuser, the organisation's manager",
    description:
      'One row for the organisation and (recursive=1, the default) one for every unit below it, sorted by name; each row counts the mandatory cells of the competence matrix of that ' +
      'organisation with the same recursive (its active persons, and with recursive those of every unit below), so its counts are the sums of that matrix. ' +
      'by_competence: the same counts per required competence. format=csv: UTF-8 with BOM, a line per organisation (competence empty) followed by a line per competence; ' +
      'format=xlsx: the same, date as a date, status colours, frozen header.',
    input: z.object({
      organisation_id: p.id(),
      recursive: p.bool().optional().describe('default 1'),
      ...common,
      ...fieldsShape,
    }),
    output: ComplianceRowView,
    answer: answer('compliance', ComplianceRowView, 'compliance'),
    async handler(ctx, input) {
      const rows = await ctx.resolve(ComplianceSummaryFlow).summary(ctx.user, { ...input, date: dayOf(ctx, input.date) });
      const format = input.format ?? 'json';
      if (format === 'json') return { items: rows };
      const date = rows[0]?.date ?? ctx.resolve(TenantClock).today();
      await ctx.resolve(ReportExportAudit).record(ctx.user, 'compliance', format, {
        organisation_id: input.organisation_id,
        recursive: input.recursive,
        date,
        expiring_within_days: input.expiring_within_days,
      });
      return download(`compliance-${date}`, format, (out) => (format === 'csv' ? complianceCsv(out, rows) : complianceXlsx(out, rows)));
    },
  }),
];
