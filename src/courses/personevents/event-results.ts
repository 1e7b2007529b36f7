import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/** A sign-on as results need it: the place on the course event. */
export interface ResultSignOn {
  id: number;
  person_id: number;
  status: 'signed_on' | 'waitlist';
  /** person_events.passed: the course result reached the pass mark (null: none recorded). */
  passed: boolean | null;
}

/** The result of one sign-on at one event (the course event or one of its module events). */
export interface EventResultRow {
  person_event_id: number;
  event_id: number;
  met: boolean | null;
  passed: number | null;
  reached: boolean | null;
  grade: number | null;
  comments: string | null;
  recorded_by: number | null;
  recorded_at: Date;
}

export type EventResultValues = Pick<EventResultRow, 'met' | 'passed' | 'reached' | 'grade' | 'comments'>;

/**
 * Results and attendance (issue 36): one row per sign-on (a place on a course event) and event,
 * the course event itself or one of its module events, whose participants are the course event's
 * signed-on persons. Writes: from the recording transaction (`tx.get(EventResults)`).
 */
@injectable()
export class EventResults {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * The live sign-ons (seat or wait list) of these persons to the course event, locked until the
   * transaction ends: two recordings for one person take turns.
   */
  async signOnsForUpdate(courseEventId: number, personIds: readonly number[]): Promise<Map<number, ResultSignOn>> {
    if (personIds.length === 0) return new Map();
    const rows: ResultSignOn[] = await this.db
      .table('person_events')
      .where('event_id', courseEventId)
      .whereIn('person_id', [...personIds])
      .whereNot('status', 'signed_off')
      .orderBy('id')
      .forUpdate()
      .select('id', 'person_id', 'status', 'passed');
    return new Map(rows.map((r) => [r.person_id, r]));
  }

  /** Every result of these sign-ons (course and module events), by sign-on. */
  async ofSignOns(personEventIds: readonly number[]): Promise<Map<number, EventResultRow[]>> {
    const out = new Map<number, EventResultRow[]>();
    if (personEventIds.length === 0) return out;
    const rows: EventResultRow[] = await this.db
      .table('event_results')
      .whereIn('person_event_id', [...personEventIds])
      .select('person_event_id', 'event_id', 'met', 'passed', 'reached', 'grade', 'comments', 'recorded_by', 'recorded_at');
    for (const r of rows) out.set(r.person_event_id, [...(out.get(r.person_event_id) ?? []), r]);
    return out;
  }

  /**
   * Writes the result (insert or replace). For the course event itself person_events.passed follows
   * `reached`, so PersonEvent's boolean `passed` stays what it was: the course passed.
   */
  async record(personEventId: number, eventId: number, isCourseEvent: boolean, v: EventResultValues, recordedBy: number): Promise<void> {
    const row = { person_event_id: personEventId, event_id: eventId, ...v, recorded_by: recordedBy, recorded_at: this.db.fn.now() };
    await this.db
      .table('event_results')
      .insert(row)
      .onConflict(['person_event_id', 'event_id'])
      .merge(['met', 'passed', 'reached', 'grade', 'comments', 'recorded_by', 'recorded_at']);
    if (isCourseEvent) await this.db.table('person_events').where('id', personEventId).update({ passed: v.reached, updated_at: this.db.fn.now() });
  }
}
