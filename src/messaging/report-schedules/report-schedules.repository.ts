import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Timing } from './schedule-period';

export type ScheduledReport = 'competencematrix' | 'compliance';
export type ScheduleFormat = 'csv' | 'xlsx';

/** A schedule as the API gives it (schedule_data), with its owner. */
export interface ScheduleFields {
  report: ScheduledReport;
  /** The report's parameters (organisation_id, recursive, role_ids, competence_ids, expiring_within_days, include_optional). */
  parameters: Record<string, unknown>;
  format: ScheduleFormat;
  timing: Timing;
  recipientUserNames: string[];
  recipientManagers: boolean;
}

export interface ScheduleRow {
  id: number;
  report: ScheduledReport;
  parameters: Record<string, unknown>;
  format: ScheduleFormat;
  frequency: 'weekly' | 'monthly';
  weekday: number | null;
  /** 1-28; 0: the month's last day. */
  day: number | null;
  time: string;
  recipient_user_names: string[];
  recipient_managers: boolean;
  owner_id: number;
  active_from: Date;
  created_at: Date;
  updated_at: Date;
  last_run_at: Date | null;
  last_error: string | null;
}

export function timingOf(row: Pick<ScheduleRow, 'frequency' | 'weekday' | 'day' | 'time'>): Timing {
  return row.frequency === 'weekly'
    ? { frequency: 'weekly', weekday: row.weekday!, time: row.time }
    : { frequency: 'monthly', day: row.day === 0 ? 'last' : row.day!, time: row.time };
}

function columns(f: ScheduleFields) {
  return {
    report: f.report,
    parameters: JSON.stringify(f.parameters),
    format: f.format,
    frequency: f.timing.frequency,
    weekday: f.timing.frequency === 'weekly' ? f.timing.weekday : null,
    day: f.timing.frequency === 'monthly' ? (f.timing.day === 'last' ? 0 : f.timing.day) : null,
    time: f.timing.time,
    recipient_user_names: f.recipientUserNames,
    recipient_managers: f.recipientManagers,
  };
}

/**
 * The report schedules (report_schedules) and the periods they sent (report_schedule_runs).
 * Built on a transaction (`tx.get`), it works on that transaction.
 */
@injectable()
export class ReportSchedulesRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  count(): Promise<number> {
    return this.db
      .table('report_schedules')
      .count('* as n')
      .first()
      .then((r) => Number(r?.n ?? 0));
  }

  /** Serialises creations of the tenant (the cap on schedules per tenant) until the transaction ends. */
  async lockForCreate(): Promise<void> {
    await this.db.raw("select pg_advisory_xact_lock(hashtext(current_schema() || ':report_schedules'))");
  }

  async insert(f: ScheduleFields, ownerId: number, now: Date): Promise<ScheduleRow> {
    const [row] = await this.db
      .table('report_schedules')
      .insert({ ...columns(f), owner_id: ownerId, active_from: now, created_at: now, updated_at: now })
      .returning('*');
    return row;
  }

  /** Replaces the fields and the owner (whoever changed it runs it now); a changed timing restarts `active_from` (no period before the change is sent). */
  async update(id: number, f: ScheduleFields, ownerId: number, now: Date, timingChanged: boolean): Promise<ScheduleRow | undefined> {
    const [row] = await this.db
      .table('report_schedules')
      .where({ id })
      .update({ ...columns(f), owner_id: ownerId, updated_at: now, ...(timingChanged ? { active_from: now } : {}) })
      .returning('*');
    return row;
  }

  find(id: number): Promise<ScheduleRow | undefined> {
    return this.db.table('report_schedules').where({ id }).first();
  }

  /** Holds the schedule until the transaction ends (a run and a change or deletion do not interleave). */
  hold(id: number): Promise<ScheduleRow | undefined> {
    return this.db.table('report_schedules').where({ id }).forUpdate().first();
  }

  /** All schedules, or those whose organisation is one of `organisationIds`, by id. */
  list(organisationIds?: readonly number[]): Promise<ScheduleRow[]> {
    const q = this.db.table('report_schedules').orderBy('id');
    if (organisationIds) q.whereRaw("(parameters->>'organisation_id')::int = any(?::int[])", [[...organisationIds]]);
    return q.select('*');
  }

  async remove(id: number): Promise<boolean> {
    return (await this.db.table('report_schedules').where({ id }).del()) > 0;
  }

  /**
   * Claims the period for this transaction: true when this transaction inserted its row. A concurrent
   * claim of the same period waits for this transaction and then inserts nothing (primary key, ON CONFLICT DO NOTHING).
   */
  async claim(scheduleId: number, periodKey: string): Promise<boolean> {
    const rows = await this.db
      .table('report_schedule_runs')
      .insert({ schedule_id: scheduleId, period_key: periodKey, outcome: 'claimed' })
      .onConflict(['schedule_id', 'period_key'])
      .ignore()
      .returning('period_key');
    return rows.length > 0;
  }

  /** Whether the period was claimed already (a cheap look before making the file; the claim decides). */
  async ran(scheduleId: number, periodKey: string): Promise<boolean> {
    return !!(await this.db.table('report_schedule_runs').where({ schedule_id: scheduleId, period_key: periodKey }).first('period_key'));
  }

  async settle(scheduleId: number, periodKey: string, outcome: string, messageIds: number[], at: Date, error: string | null): Promise<void> {
    await this.db.table('report_schedule_runs').where({ schedule_id: scheduleId, period_key: periodKey }).update({ outcome, message_ids: messageIds });
    await this.db.table('report_schedules').where({ id: scheduleId }).update({ last_run_at: at, last_error: error });
  }

  /** The periods a schedule sent, newest first. */
  runs(scheduleId: number, limit = 20): Promise<{ period_key: string; outcome: string; message_ids: number[]; created_at: Date }[]> {
    return this.db
      .table('report_schedule_runs')
      .where({ schedule_id: scheduleId })
      .orderBy('created_at', 'desc')
      .limit(limit)
      .select('period_key', 'outcome', 'message_ids', 'created_at');
  }
}
