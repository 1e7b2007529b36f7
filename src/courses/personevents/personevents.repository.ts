import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import type { PersonEventRow } from './person-event.presenter';

export interface PersonEventFilters {
  personIds?: number[] | Knex.QueryBuilder | Knex.Raw;
  eventIds?: number[];
  personEventIds?: number[];
  mode: 'future' | 'finished' | 'all';
  waitlist: boolean;
}

export interface OrderRef {
  id: number;
  reference: string;
}

@injectable()
export class PersonEventsRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * Sign-ons as `pe` (with their event `e` and order `o`), every column of a PersonEventRow but the
   * person's user_name, which is the people module's: a flow widens this query with it (joining on
   * pe.person_id) and hands the widened query, `named`, to byId, live and list.
   */
  base(): Knex.QueryBuilder {
    return this.db
      .table('person_events as pe')
      .join('events as e', 'e.id', 'pe.event_id')
      .leftJoin('orders as o', 'o.id', 'pe.order_id')
      .select(
        'pe.id',
        'pe.person_id',
        'pe.event_id',
        'e.title as event_title',
        'e.starts_at',
        'e.ends_at',
        'pe.status',
        'pe.passed',
        'pe.order_id',
        'o.reference as order_reference',
        'pe.created_at',
        'pe.signed_off_at',
      );
  }

  async byId(named: Knex.QueryBuilder, id: number): Promise<PersonEventRow> {
    return named.where('pe.id', id).first();
  }

  /** The sign-ons on these orders (any status), oldest first: what GET /api/orders shows of each. */
  onOrders(named: Knex.QueryBuilder, orderIds: readonly number[]): Promise<PersonEventRow[]> {
    return named.whereIn('pe.order_id', [...orderIds]).orderBy('pe.id');
  }

  async live(named: Knex.QueryBuilder, personId: number, eventId: number): Promise<PersonEventRow | undefined> {
    return named.where({ 'pe.person_id': personId, 'pe.event_id': eventId }).whereNot('pe.status', 'signed_off').first();
  }

  /** The person's live sign-on (seat or wait list) to the event. */
  async liveId(personId: number, eventId: number): Promise<number | undefined> {
    const live = await this.db.table('person_events').where({ person_id: personId, event_id: eventId }).whereNot('status', 'signed_off').first('id');
    return live?.id;
  }

  /**
   * The person's live places (seat or wait list) in events that start after `now`, by event id:
   * what a deactivation ends (events under way and past ones stay as they are, history).
   */
  async liveUpcoming(personId: number, now: Date): Promise<{ id: number; event_id: number }[]> {
    return this.db
      .table('person_events as pe')
      .join('events as e', 'e.id', 'pe.event_id')
      .where('pe.person_id', personId)
      .whereNot('pe.status', 'signed_off')
      .where('e.starts_at', '>', now)
      .orderBy([{ column: 'pe.event_id' }, { column: 'pe.id' }])
      .select('pe.id', 'pe.event_id');
  }

  async insert(row: { person_id: number; event_id: number; status: 'signed_on' | 'waitlist'; order_id: number | null }): Promise<number> {
    const [created] = await this.db.table('person_events').insert(row).returning('id');
    return created.id;
  }

  async signOff(id: number): Promise<void> {
    await this.db.table('person_events').where({ id }).update({ status: 'signed_off', signed_off_at: this.db.fn.now(), updated_at: this.db.fn.now() });
  }

  async seatsTaken(eventId: number): Promise<number> {
    const [{ count }] = await this.db.table('person_events').where({ event_id: eventId, status: 'signed_on' }).count<{ count: string }[]>('* as count');
    return Number(count);
  }

  /** The wait list of an event, longest waiting first; at most `limit` (all when null). */
  async waiting(eventId: number, limit: number | null): Promise<{ id: number; person_id: number }[]> {
    const q = this.db
      .table('person_events')
      .where({ event_id: eventId, status: 'waitlist' })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('id', 'person_id');
    return limit === null ? q : q.limit(limit);
  }

  async promote(id: number): Promise<void> {
    await this.db.table('person_events').where({ id }).update({ status: 'signed_on', updated_at: this.db.fn.now() });
  }

  /** An order of the person (order system): another person's would bill them. */
  async orderOf(orderId: number, personId: number): Promise<OrderRef | undefined> {
    return this.db.table('orders').where({ id: orderId, person_id: personId }).first('id', 'reference');
  }

  async createOrder(reference: string, personId: number): Promise<OrderRef> {
    const [created] = await this.db.table('orders').insert({ reference, person_id: personId }).returning(['id', 'reference']);
    return created;
  }

  /**
   * The participants of an event as `pe` (a flow widens it with the persons, joining on
   * pe.person_id), with their result at this event (`event_results` as r): person_event_id,
   * status, created_at, met, passed (0-100), reached (the pass mark), grade, comments,
   * result_recorded_at, result_recorded_by (a person id). A course event's participants are its
   * live sign-ons (seat or wait list); a module event's (parent_id set) are its course event's
   * signed-on persons (seats only). On a course event a sign-on whose boolean passed was set
   * without a result (older data, tenant imports) shows passed 100 or 0.
   * Filters: waitlist, passed (reached the pass mark, or not / not assessed), met (attended, or not / not recorded).
   */
  participants(event: { id: number; parent_id: number | null }, f: { waitlist?: boolean; passed?: boolean; met?: boolean }): Knex.QueryBuilder {
    const db = this.db;
    const module = event.parent_id !== null;
    const passed = module ? db.raw('r.passed') : db.raw('coalesce(r.passed, case when pe.passed then 100 when not pe.passed then 0 end)');
    const reached = module ? 'r.reached' : 'pe.passed';
    const q = db
      .table('person_events as pe')
      .leftJoin('event_results as r', (j) => j.on('r.person_event_id', 'pe.id').andOn('r.event_id', db.raw('?', [event.id])))
      .where('pe.event_id', event.parent_id ?? event.id)
      .whereNot('pe.status', 'signed_off')
      .select(
        'pe.id as person_event_id',
        'pe.status',
        'pe.created_at',
        db.raw('? as passed', [passed]),
        `${reached} as reached`,
        'r.met',
        'r.grade',
        'r.comments',
        'r.recorded_at as result_recorded_at',
        'r.recorded_by as result_recorded_by',
      );
    if (module) q.where('pe.status', 'signed_on');
    if (f.waitlist !== undefined) q.where('pe.status', f.waitlist ? 'waitlist' : 'signed_on');
    if (f.passed !== undefined) q.where(f.passed ? (w) => void w.where(reached, true) : (w) => void w.whereNull(reached).orWhere(reached, false));
    if (f.met !== undefined) q.where(f.met ? (w) => void w.where('r.met', true) : (w) => void w.whereNull('r.met').orWhere('r.met', false));
    return q;
  }

  async list(named: Knex.QueryBuilder, f: PersonEventFilters, paging: Paging, now: Date): Promise<PersonEventRow[]> {
    const q = named.where('pe.status', f.waitlist ? 'waitlist' : 'signed_on');
    if (f.personIds) q.whereIn('pe.person_id', f.personIds as any);
    if (f.eventIds?.length) q.whereIn('pe.event_id', f.eventIds);
    if (f.personEventIds?.length) q.whereIn('pe.id', f.personEventIds);
    if (f.mode === 'future') q.where('e.ends_at', '>=', now);
    else if (f.mode === 'finished') q.where('e.ends_at', '<', now);
    return q
      .orderBy([{ column: 'e.starts_at' }, { column: 'pe.id' }])
      .limit(paging.limit)
      .offset(paging.offset);
  }
}
