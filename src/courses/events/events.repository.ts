import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';

export interface EventRow {
  id: number;
  parent_id: number | null;
  competence_id: number;
  title: string;
  description: string | null;
  location_id: number | null;
  location_name: string | null;
  host_organisation_id: number | null;
  instructor_id: number | null;
  starts_at: Date;
  ends_at: Date;
  signon_opens: Date | null;
  signon_closes: Date | null;
  max_participants: number | null;
  min_age: number | null;
  cancelled: boolean;
  /** Why and when it was cancelled (PUT /api/events/[id]/cancel); null while not cancelled. */
  cancel_reason?: string | null;
  cancelled_at?: Date | null;
  locked: boolean;
  custom_attributes: Record<string, unknown>;
}

export interface SeatCounts {
  signed_on: number;
  waitlist: number;
}

/** Reads events; filters are applied by the caller. */
@injectable()
export class EventsRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * Events as `e` (columns competence_id, instructor_id, ...) with their location's name (l): an
   * EventRow. The competence's title and the instructor's user name are other modules': a flow
   * widens this query with them for the views (DescribedEvent).
   */
  base(): Knex.QueryBuilder {
    return this.db.table('events as e').leftJoin('locations as l', 'l.id', 'e.location_id').select('e.*', 'l.name as location_name');
  }

  async page<R extends EventRow>(q: Knex.QueryBuilder, paging: Paging, direction: 'asc' | 'desc'): Promise<R[]> {
    return q
      .orderBy([
        { column: 'e.starts_at', order: direction },
        { column: 'e.id', order: direction },
      ])
      .limit(paging.limit)
      .offset(paging.offset);
  }

  /** The event, read through `from` (base() or a flow's widening of it). */
  async find<R extends EventRow = EventRow>(id: number, from: Knex.QueryBuilder = this.base()): Promise<R | undefined> {
    return from.where('e.id', id).first();
  }

  /** Narrows `q` to the course events at the location overlapping from..to. */
  atLocation(q: Knex.QueryBuilder, locationId: number, from: Date, to: Date): Knex.QueryBuilder {
    return q.whereNull('e.parent_id').where('e.location_id', locationId).where('e.starts_at', '<', to).where('e.ends_at', '>', from);
  }

  /** The event, its row locked until the transaction ends (only the event row: FOR UPDATE OF e). */
  async findForUpdate(id: number): Promise<EventRow | undefined> {
    return this.base().where('e.id', id).forUpdate('e').first();
  }

  /** The module events of these course events, read through `from` (base() or a flow's widening of it). */
  async children<R extends EventRow>(from: Knex.QueryBuilder, parentIds: number[]): Promise<R[]> {
    if (!parentIds.length) return [];
    return from.whereIn('e.parent_id', parentIds).orderBy([{ column: 'e.starts_at' }, { column: 'e.id' }]);
  }

  async seatCounts(eventIds: number[]): Promise<Map<number, SeatCounts>> {
    const out = new Map<number, SeatCounts>();
    if (!eventIds.length) return out;
    const rows = await this.db
      .table('person_events')
      .whereIn('event_id', eventIds)
      .whereIn('status', ['signed_on', 'waitlist'])
      .groupBy('event_id', 'status')
      .select('event_id', 'status')
      .count<{ event_id: number; status: string; count: string }[]>('* as count');
    for (const r of rows) {
      const c = out.get(r.event_id) ?? { signed_on: 0, waitlist: 0 };
      c[r.status as keyof SeatCounts] = Number(r.count);
      out.set(r.event_id, c);
    }
    return out;
  }

  async prerequisites(eventIds: number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    if (!eventIds.length) return out;
    const rows = await this.db.table('event_prerequisites').whereIn('event_id', eventIds).orderBy('competence_id').select('event_id', 'competence_id');
    for (const r of rows) out.set(r.event_id, [...(out.get(r.event_id) ?? []), r.competence_id]);
    return out;
  }

  /** The person's live status per event (signed_on / waitlist). */
  async statusFor(personId: number, eventIds: number[]): Promise<Map<number, string>> {
    if (!eventIds.length) return new Map();
    const rows = await this.db
      .table('person_events')
      .where({ person_id: personId })
      .whereIn('event_id', eventIds)
      .whereNot('status', 'signed_off')
      .select('event_id', 'status');
    return new Map(rows.map((r: { event_id: number; status: string }) => [r.event_id, r.status]));
  }
}
