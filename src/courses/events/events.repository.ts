import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import { joinPersons } from '../../people';
import { joinCompetences } from '../../catalogue';

export interface EventRow {
  id: number;
  parent_id: number | null;
  competence_id: number;
  competence_title: string;
  title: string;
  description: string | null;
  location_id: number | null;
  location_name: string | null;
  host_organisation_id: number | null;
  instructor_id: number | null;
  instructor_user_name: string | null;
  starts_at: Date;
  ends_at: Date;
  signon_opens: Date | null;
  signon_closes: Date | null;
  max_participants: number | null;
  min_age: number | null;
  cancelled: boolean;
  locked: boolean;
  custom_attributes: Record<string, unknown>;
}

export interface SeatCounts {
  signed_on: number;
  waitlist: number;
}

/** Reads events with the names the presenter needs; filters are applied by the caller. */
@injectable()
export class EventsRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** Base query: e = events, c = competences, l = locations, i = instructor. */
  base(): Knex.QueryBuilder {
    const { db } = this;
    const q = joinCompetences(db.table('events as e'), 'c', 'e.competence_id').leftJoin('locations as l', 'l.id', 'e.location_id');
    return joinPersons(q, 'i', 'e.instructor_id', 'left').select('e.*', 'c.title as competence_title', 'l.name as location_name', 'i.user_name as instructor_user_name');
  }

  async page(q: Knex.QueryBuilder, paging: Paging, direction: 'asc' | 'desc'): Promise<EventRow[]> {
    return q.orderBy([{ column: 'e.starts_at', order: direction }, { column: 'e.id', order: direction }]).limit(paging.limit).offset(paging.offset);
  }

  async find(id: number): Promise<EventRow | undefined> {
    return this.base().where('e.id', id).first();
  }

  /** The event, its row locked until the transaction ends (only the event row: FOR UPDATE OF e). */
  async findForUpdate(id: number): Promise<EventRow | undefined> {
    return this.base().where('e.id', id).forUpdate('e').first();
  }

  async children(parentIds: number[]): Promise<EventRow[]> {
    if (!parentIds.length) return [];
    return this.base().whereIn('e.parent_id', parentIds).orderBy([{ column: 'e.starts_at' }, { column: 'e.id' }]);
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
