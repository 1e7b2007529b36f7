import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject, p } from '../../platform/http/param-types';
import { policies } from '../../people';
import { ReportSchedulesFlow, scheduleDataOf, type ScheduleView } from '../../flows/reports/report-schedules';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

const ScheduleOut = z
  .object({
    schedule_id: z.number().int(),
    report: z.enum(['competencematrix', 'compliance']),
    organisation_id: z.number().int(),
    recursive: z.boolean().optional(),
    role_ids: z.array(z.number().int()).optional(),
    competence_ids: z.array(z.number().int()).optional(),
    expiring_within_days: z.number().int().optional(),
    include_optional: z.boolean().optional(),
    format: z.enum(['csv', 'xlsx']),
    frequency: z.enum(['weekly', 'monthly']),
    weekday: z.number().int().min(1).max(7).optional().describe('weekly: 1 Monday ... 7 Sunday'),
    day: z
      .union([z.number().int().min(1).max(28), z.literal('last')])
      .optional()
      .describe('monthly: 1-28, or last'),
    time: z.string().describe("HH:MM in the tenant's time zone"),
    time_zone: z.string().describe("the tenant's zone (config item tenant.timezone)"),
    recipients: z.array(z.string()).describe('user names, and `managers` for the managers of the organisation'),
    owner_user_name: z.string().nullable().describe('whose rights the report is made with: who created or last changed it'),
    next_run_at: z.string().describe('ISO 8601: when it is sent next'),
    last_run_at: z.string().nullable(),
    last_error: z.string().nullable().describe('why the last run sent nothing, or whom it left out'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .describe('A report mailed by itself: weekly or monthly, as a CSV or XLSX attachment')
  .meta({ id: 'ReportSchedule' });

function present(v: ScheduleView) {
  const { report, ...data } = scheduleDataOf(v.row);
  return {
    schedule_id: v.row.id,
    report: report!,
    ...(data as Omit<typeof data, 'format' | 'frequency' | 'time' | 'recipients' | 'organisation_id'>),
    organisation_id: data.organisation_id!,
    format: data.format!,
    frequency: data.frequency!,
    time: data.time!,
    recipients: data.recipients!,
    time_zone: v.zone,
    owner_user_name: v.owner,
    next_run_at: iso(v.next_run_at)!,
    last_run_at: iso(v.row.last_run_at),
    last_error: v.row.last_error,
    created_at: iso(v.row.created_at)!,
    updated_at: iso(v.row.updated_at)!,
  };
}

const dayParam = z.preprocess(
  (v) => (typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v),
  z.union([z.number().int().min(1, 'must be 1-28 or last').max(28, 'must be 1-28 or last'), z.literal('last')], { message: 'must be 1-28 or last' }),
);

const fields = {
  // a string first: an absent one is then a 419 (missing), a wrong one a 420
  report: z.string().pipe(z.enum(['competencematrix', 'compliance'], { message: 'must be competencematrix or compliance' })),
  organisation_id: p.id(),
  recursive: p.bool(),
  role_ids: p.idList().describe('competencematrix only'),
  competence_ids: p.idList().describe('competencematrix only'),
  expiring_within_days: p.int().pipe(z.number().min(0, 'must be 0-3650').max(3650, 'must be 0-3650')),
  include_optional: p.bool().describe('competencematrix only'),
  format: z.string().pipe(z.enum(['csv', 'xlsx'], { message: 'must be csv or xlsx' })),
  frequency: z.string().pipe(z.enum(['weekly', 'monthly'], { message: 'must be weekly or monthly' })),
  weekday: p.int().pipe(z.number().min(1, 'must be 1-7 (1 Monday)').max(7, 'must be 1-7 (1 Monday)')).describe('with weekly: 1 Monday ... 7 Sunday'),
  day: dayParam.describe('with monthly: 1-28, or last'),
  time: z.string().trim().regex(TIME, 'must be HH:MM (00:00-23:59)').describe("HH:MM in the tenant's time zone"),
  recipients: p
    .stringList()
    .pipe(z.array(z.string()).min(1, 'must name at least one recipient'))
    .describe('user names and/or `managers` (the managers assigned to the organisation); a list'),
};

const required = ['report', 'organisation_id', 'format', 'frequency', 'time', 'recipients'] as const;
const CreateData = z.object(
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, (required as readonly string[]).includes(k) ? v : v.optional()])) as {
    [K in keyof typeof fields]: (typeof fields)[K];
  },
);
const UpdateData = z.object(
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as { [K in keyof typeof fields]: z.ZodOptional<(typeof fields)[K]> },
);

const scheduleId = p.id();

const ABOUT =
  'schedule_data: report (competencematrix | compliance), its parameters (organisation_id; recursive, role_ids, competence_ids, expiring_within_days, include_optional as GET /api/reports/...), ' +
  "format (csv | xlsx), frequency (weekly with weekday 1-7 | monthly with day 1-28 or last), time (HH:MM, tenant's time zone), recipients (user names and/or managers). " +
  'The workers mail the file as an attachment to each recipient, exactly once per week or month, at the first scan on or after the time (REPORT_SCHEDULE_SCAN_INTERVAL_SECONDS). ' +
  "Who: superusers, managers for the organisations they manage (403 elsewhere), checked now and, with the owner's rights, at every run. Recipients: yourself, persons you manage, managers of the organisation. " +
  'At most config item reports.max_schedules per tenant (409).';

export const reportScheduleRoutes = [
  defineRoute({
    method: 'post',
    path: '/reports/schedules',
    access: policies.manager('schedule reports'),
    resource: 'schedules',
    summary: 'Schedule a report to be mailed weekly or monthly (superuser; manager for the organisations they manage)',
    description: ABOUT,
    input: z.object({ schedule_data: z.preprocess(jsonObject, CreateData) }),
    output: ScheduleOut,
    created: true,
    async handler(ctx, input) {
      const v = await ctx.resolve(ReportSchedulesFlow).create(ctx.user, input.schedule_data);
      return { items: [present(v)], message: `report schedule ${v.row.id} created; next run ${iso(v.next_run_at)}` };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/reports/schedules',
    access: policies.manager('list report schedules'),
    resource: 'schedules',
    summary: 'Report schedules: all (superusers), those of the organisations you manage (managers)',
    input: z.object({}),
    output: ScheduleOut,
    async handler(ctx) {
      return { items: (await ctx.resolve(ReportSchedulesFlow).list(ctx.user)).map(present) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/reports/schedules/:schedule_id',
    access: policies.manager('see report schedules'),
    resource: 'schedules',
    summary: 'One report schedule (superuser; a manager of its organisation)',
    input: z.object({ schedule_id: scheduleId }),
    output: ScheduleOut,
    async handler(ctx, input) {
      return { items: [present(await ctx.resolve(ReportSchedulesFlow).get(ctx.user, input.schedule_id))] };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/reports/schedules/:schedule_id',
    access: policies.manager('change report schedules'),
    resource: 'schedules',
    summary: 'Change a report schedule: the schedule_data fields given replace its own; you become its owner (superuser; a manager of its organisation)',
    description: `${ABOUT} A changed frequency, day or time sends no period whose time lies before the change.`,
    input: z.object({ schedule_id: scheduleId, schedule_data: z.preprocess(jsonObject, UpdateData) }),
    output: ScheduleOut,
    idempotencyKey: true,
    async handler(ctx, input) {
      const v = await ctx.resolve(ReportSchedulesFlow).update(ctx.user, input.schedule_id, input.schedule_data);
      return { items: [present(v)], message: `report schedule ${v.row.id} changed` };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/reports/schedules/:schedule_id',
    access: policies.manager('delete report schedules'),
    resource: 'schedules',
    summary: 'Delete a report schedule (superuser; a manager of its organisation)',
    input: z.object({ schedule_id: scheduleId }),
    idempotencyKey: true,
    async handler(ctx, input) {
      await ctx.resolve(ReportSchedulesFlow).delete(ctx.user, input.schedule_id);
      return { items: [], message: `report schedule ${input.schedule_id} deleted` };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/reports/schedules/:schedule_id/run',
    access: policies.manager('run report schedules'),
    resource: 'schedules',
    summary: 'Send the scheduled report now, once, to its recipients (superuser; a manager of its organisation); 202: the mails are in the outbox',
    description:
      "Made now with the owner's rights (403 when the owner may no longer see it), one mail per recipient with the file attached; the schedule's own periods are not affected.",
    input: z.object({ schedule_id: scheduleId }),
    output: ScheduleOut,
    accepted: 'the report was made and its mails are in the outbox; they are delivered by the workers',
    async handler(ctx, input) {
      const { view, outcome } = await ctx.resolve(ReportSchedulesFlow).runNow(ctx.user, input.schedule_id);
      const message = outcome === 'sent' ? 'report made; its mails are queued' : 'report made, but no recipient could be mailed (see last_error)';
      return { status: 202, items: [present(view)], message };
    },
  }),
];
