import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { TenantClock } from '../../platform/time/tenant-clock';
import { AuditTrail } from '../../platform/audit';
import { OrganisationManagersRepository, PersonDirectory } from '../../people';
import { ReportSchedulesRepository, nextRun, timingOf, type ScheduleFields, type ScheduleRow, type Timing } from '../../messaging';
import { ScheduledReport, type ScheduledReportParams } from './scheduled-report';
import { ScheduleRecipients } from './schedule-recipients';
import { ScheduleRunner, type RunOutcome } from './schedule-runner';

/** schedule_data as the routes parse it (every field optional for PUT: the given ones replace the schedule's). */
export interface ScheduleInput extends Partial<ScheduledReportParams> {
  report?: 'competencematrix' | 'compliance';
  format?: 'csv' | 'xlsx';
  frequency?: 'weekly' | 'monthly';
  weekday?: number;
  day?: number | 'last';
  time?: string;
  /** User names, and/or the word `managers` (the managers of the organisation). */
  recipients?: string[];
}

export interface ScheduleView {
  row: ScheduleRow;
  owner: string | null;
  zone: string;
  next_run_at: Date;
}

const PARAMS = ['organisation_id', 'recursive', 'role_ids', 'competence_ids', 'expiring_within_days', 'include_optional'] as const;
const MANAGERS = 'managers';

/** Back to schedule_data's names (what PUT merges the given fields over). */
function inputOf(row: ScheduleRow): ScheduleInput {
  const t = timingOf(row);
  return {
    report: row.report,
    ...(row.parameters as Partial<ScheduledReportParams>),
    format: row.format,
    frequency: t.frequency,
    ...(t.frequency === 'weekly' ? { weekday: t.weekday } : { day: t.day }),
    time: t.time,
    recipients: [...row.recipient_user_names, ...(row.recipient_managers ? [MANAGERS] : [])],
  };
}

/** A complete schedule_data to fields; 419 for what a complete one lacks, 420 for what does not fit together. */
function fieldsOf(d: ScheduleInput): ScheduleFields {
  for (const name of ['report', 'organisation_id', 'format', 'frequency', 'time', 'recipients'] as const) {
    if (d[name] === undefined || (name === 'recipients' && !d.recipients!.length)) throw ApiError.missing(`schedule_data[${name}]`);
  }
  if (d.report === 'compliance' && (d.role_ids || d.competence_ids || d.include_optional !== undefined)) {
    throw ApiError.malformed('schedule_data[report]', 'compliance takes organisation_id, recursive and expiring_within_days only');
  }
  let timing: Timing;
  if (d.frequency === 'weekly') {
    if (d.weekday === undefined) throw ApiError.missing('schedule_data[weekday]');
    if (d.day !== undefined) throw ApiError.malformed('schedule_data[day]', 'only with frequency monthly');
    timing = { frequency: 'weekly', weekday: d.weekday, time: d.time! };
  } else {
    if (d.day === undefined) throw ApiError.missing('schedule_data[day]');
    if (d.weekday !== undefined) throw ApiError.malformed('schedule_data[weekday]', 'only with frequency weekly');
    timing = { frequency: 'monthly', day: d.day, time: d.time! };
  }
  const parameters = Object.fromEntries(PARAMS.filter((k) => d[k] !== undefined).map((k) => [k, d[k]]));
  return {
    report: d.report!,
    parameters,
    format: d.format!,
    timing,
    recipientUserNames: [...new Set(d.recipients!.filter((r) => r !== MANAGERS))],
    recipientManagers: d.recipients!.includes(MANAGERS),
  };
}

const sameTiming = (a: Timing, b: Timing) => JSON.stringify(a) === JSON.stringify(b);

/**
 * POST/GET/PUT/DELETE /api/reports/schedules and run-now (issue 38 item 4). Who: superusers, and
 * managers for the organisations they manage: the report's own access rule (CompetenceMatrixFlow.scope,
 * 403 outside their subtrees), checked with the caller's rights when a schedule is created or changed,
 * and with its owner's (the person who created or last changed it) at every run. Another manager's
 * schedule of an organisation the caller does not manage: 403; an id the tenant does not have: 404.
 */
@injectable()
export class ReportSchedulesFlow {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(ReportSchedulesRepository) private readonly schedules: ReportSchedulesRepository,
    @inject(ScheduledReport) private readonly report: ScheduledReport,
    @inject(ScheduleRecipients) private readonly recipients: ScheduleRecipients,
    @inject(OrganisationManagersRepository) private readonly managers: OrganisationManagersRepository,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(ScheduleRunner) private readonly runner: ScheduleRunner,
  ) {}

  private async checked(user: Principal, input: ScheduleInput): Promise<ScheduleFields> {
    const fields = fieldsOf(input);
    const params = fields.parameters as unknown as ScheduledReportParams;
    await this.report.check(user, fields.report, params);
    await this.recipients.check(user, params.organisation_id, fields.recipientUserNames);
    return fields;
  }

  async create(user: Principal, input: ScheduleInput): Promise<ScheduleView> {
    const fields = await this.checked(user, input);
    const row = await this.uow.run(async (tx) => {
      const repo = tx.get(ReportSchedulesRepository);
      await repo.lockForCreate();
      const cap = this.tenant.config.get('reports.max_schedules');
      if (cap !== null && (await repo.count()) >= cap) {
        throw new ApiError(409, `the tenant has ${cap} report schedules, the most it may have (config item reports.max_schedules); delete one first`);
      }
      const created = await repo.insert(fields, user.personId, this.clock.now());
      await tx.get(AuditTrail).record({ type: 'report_schedule.created', actor: user.userName, subject: String(created.id), details: this.auditOf(created) });
      return created;
    });
    return this.view(row);
  }

  async list(user: Principal): Promise<ScheduleView[]> {
    const rows = user.superuser ? await this.schedules.list() : await this.schedules.list([...(await this.managers.managedBy(user.personId))]);
    const owners = await this.persons.userNames(rows.map((r) => r.owner_id));
    return rows.map((r) => this.viewWith(r, owners.get(r.owner_id) ?? null));
  }

  async get(user: Principal, id: number): Promise<ScheduleView> {
    return this.view(await this.visible(user, id));
  }

  async update(user: Principal, id: number, input: ScheduleInput): Promise<ScheduleView> {
    const before = await this.visible(user, id);
    const base = inputOf(before);
    // another frequency takes its own weekday or day (given with it), not the old one's
    if (input.frequency && input.frequency !== base.frequency) delete base[base.frequency === 'weekly' ? 'weekday' : 'day'];
    const fields = await this.checked(user, { ...base, ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) });
    const row = await this.uow.run(async (tx) => {
      const repo = tx.get(ReportSchedulesRepository);
      if (!(await repo.hold(id))) throw ApiError.notFound(`report schedule ${id}`);
      const updated = (await repo.update(id, fields, user.personId, this.clock.now(), !sameTiming(timingOf(before), fields.timing)))!;
      const given = Object.keys(input).filter((k) => input[k as keyof ScheduleInput] !== undefined);
      await tx
        .get(AuditTrail)
        .record({ type: 'report_schedule.updated', actor: user.userName, subject: String(id), details: { ...this.auditOf(updated), fields: given } });
      return updated;
    });
    return this.view(row);
  }

  async delete(user: Principal, id: number): Promise<void> {
    const row = await this.visible(user, id);
    await this.uow.run(async (tx) => {
      if (!(await tx.get(ReportSchedulesRepository).remove(id))) throw ApiError.notFound(`report schedule ${id}`);
      await tx.get(AuditTrail).record({ type: 'report_schedule.deleted', actor: user.userName, subject: String(id), details: this.auditOf(row) });
    });
  }

  /** Sends the report now (a period of its own, `now:<time>`), with the owner's rights. */
  async runNow(user: Principal, id: number): Promise<{ view: ScheduleView; outcome: RunOutcome }> {
    const row = await this.visible(user, id);
    const outcome = await this.runner.run(row, `now:${this.clock.now().toISOString()}`, user);
    if (outcome === 'gone') throw ApiError.notFound(`report schedule ${id}`);
    if (outcome === 'taken') throw new ApiError(409, `report schedule ${id} was changed while its report was made; nothing was sent, try again`);
    const after = (await this.schedules.find(id)) ?? row;
    if (outcome === 'refused') throw ApiError.forbidden(`report schedule ${id} was not sent: ${after.last_error ?? 'its owner may no longer see this report'}`);
    return { view: await this.view(after), outcome };
  }

  /** The schedule, when the caller may see it: a superuser, or a manager of its organisation (403 otherwise); 404 when there is none. */
  private async visible(user: Principal, id: number): Promise<ScheduleRow> {
    const row = await this.schedules.find(id);
    if (!row) throw ApiError.notFound(`report schedule ${id}`);
    if (!user.superuser && !(await this.managers.managedBy(user.personId)).has((row.parameters as { organisation_id: number }).organisation_id)) {
      throw ApiError.forbidden('not authorised to see this report schedule: only a manager of its organisation or a superuser may');
    }
    return row;
  }

  private auditOf(row: ScheduleRow) {
    return {
      report: row.report,
      format: row.format,
      frequency: row.frequency,
      organisation_id: (row.parameters as { organisation_id: number }).organisation_id,
    };
  }

  private async view(row: ScheduleRow): Promise<ScheduleView> {
    return this.viewWith(row, (await this.persons.userNames([row.owner_id])).get(row.owner_id) ?? null);
  }

  private viewWith(row: ScheduleRow, owner: string | null): ScheduleView {
    const zone = this.clock.zone;
    return { row, owner, zone, next_run_at: nextRun(timingOf(row), zone, this.clock.now(), row.active_from) };
  }
}

export { inputOf as scheduleDataOf };
