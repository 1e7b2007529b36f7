import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { EventRow } from './events.repository';
import type { JoinFacts } from './join-check';

interface FactsRow {
  missing: { id: number; title: string }[];
  clash: { title: string; starts_at: string } | null;
  live: string | null;
  seats: string;
}

/** The person_events row a sign-on wrote. */
export interface SignOnInserted {
  id: number;
  status: 'signed_on' | 'waitlist';
  passed: boolean | null;
  order_id: number | null;
  created_at: Date;
  signed_off_at: Date | null;
}

/** The prerequisites of an event, as `ep` (column competence_id): what the sign-on flow narrows to those a person lacks. */
export function eventPrerequisites(db: TenantDb, eventId: number): Knex.QueryBuilder {
  return db.table('event_prerequisites as ep').where('ep.event_id', eventId);
}

/**
 * The prerequisites of `eventId` that `personId` does not hold on `today`, as rows (id, title) ordered
 * by title, on `db`. Whether a competence is held, and its title, are the catalogue's: the sign-on
 * flow composes this query from `eventPrerequisites` and hands it in, so it stays a sub-query of the
 * one statement a sign-on reads its facts with.
 */
export type MissingPrerequisitesQuery = (db: TenantDb, eventId: number, personId: number, today: string) => Knex.QueryBuilder;

/** The facts of check_join, from the tables (on the transaction that locked the event, when sign-on asks). */
@injectable()
export class JoinCheckRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** check_join's facts, each read by a query of its own. */
  facts(missing: MissingPrerequisitesQuery): JoinFacts {
    return {
      missingPrerequisites: (eventId, personId, today) => missing(this.db, eventId, personId, today),
      clash: (personId, event) => this.clash(personId, event),
      liveStatus: (personId, eventId) => this.liveStatus(personId, eventId),
      seatsTaken: (eventId) => this.seatsTaken(eventId),
    };
  }

  clash(personId: number, event: EventRow): Promise<{ title: string; starts_at: Date } | undefined> {
    return this.clashQuery(personId, event).first('e.title', 'e.starts_at');
  }

  async liveStatus(personId: number, eventId: number): Promise<string | undefined> {
    const live = await this.liveQuery(personId, eventId);
    return live?.status;
  }

  async seatsTaken(eventId: number): Promise<number> {
    const [{ count }] = await this.seatsQuery(eventId);
    return Number(count);
  }

  /**
   * Every fact check_join may ask, read in one statement (sign-on reads them while it holds the
   * event's row lock, so each round trip saved shortens the queue on a popular event). The same
   * queries as the methods above, as scalar sub-queries; a question asked with other arguments
   * than prefetched goes to the table.
   */
  async prefetch(event: EventRow, personId: number, today: string, withClash: boolean, missing: MissingPrerequisitesQuery): Promise<JoinFacts> {
    const { sql, bindings } = this.factsSql(event, personId, today, withClash, missing);
    const { rows } = await this.db.raw(sql, bindings);
    return this.factsFrom(rows[0], event, personId, today, withClash, missing);
  }

  /**
   * The facts of `prefetch` and, in the same statement, the sign-on they allow: a row in
   * person_events (a seat while seats are free, else the wait list) when `signOn.allowed` (the
   * checks that need no table passed) and the facts block nothing (no missing prerequisite, no
   * clash, no live sign-on). Call it holding the event's row lock: the statement's snapshot then
   * holds every sign-on committed before, so the seat count it decides on is the current one.
   */
  async prefetchAndSignOn(
    event: EventRow,
    personId: number,
    today: string,
    withClash: boolean,
    signOn: { allowed: boolean; orderId: number | null },
    missing: MissingPrerequisitesQuery,
  ): Promise<{ facts: JoinFacts; inserted: SignOnInserted | null }> {
    const facts = this.factsSql(event, personId, today, withClash, missing);
    const sql = `with f as (${facts.sql}),
      ins as (insert into ?? (person_id, event_id, status, order_id)
        select ?, ?, case when ?::int is not null and f.seats >= ?::int then 'waitlist' else 'signed_on' end, ?::int from f
        where ?::boolean and json_array_length(f.missing) = 0 and f.clash is null and f.live is null
        returning id, status, passed, order_id, created_at, signed_off_at)
      select f.*, (select row_to_json(ins) from ins) as inserted from f`;
    const max = event.max_participants;
    const { rows } = await this.db.raw(sql, [...facts.bindings, this.db.ref('person_events'), personId, event.id, max, max, signOn.orderId, signOn.allowed]);
    const row = rows[0] as FactsRow & {
      inserted: (Omit<SignOnInserted, 'created_at' | 'signed_off_at'> & { created_at: string; signed_off_at: string | null }) | null;
    };
    const i = row.inserted;
    return {
      facts: this.factsFrom(row, event, personId, today, withClash, missing),
      inserted: i && { ...i, created_at: new Date(i.created_at), signed_off_at: i.signed_off_at === null ? null : new Date(i.signed_off_at) },
    };
  }

  private factsSql(
    event: EventRow,
    personId: number,
    today: string,
    withClash: boolean,
    missingQuery: MissingPrerequisitesQuery,
  ): { sql: string; bindings: Knex.RawBinding[] } {
    const parts = [
      missingQuery(this.db, event.id, personId, today).toSQL(),
      withClash ? this.clashQuery(personId, event).limit(1).select('e.title', 'e.starts_at').toSQL() : null,
      this.liveQuery(personId, event.id).toSQL(),
      this.seatsQuery(event.id).toSQL(),
    ];
    const [missing, clash, live, seats] = parts;
    const sql = `select (select coalesce(json_agg(json_build_object('id', m.id, 'title', m.title) order by m.title), '[]'::json) from (${missing!.sql}) m) as missing,
      ${clash ? `(select json_build_object('title', c.title, 'starts_at', c.starts_at) from (${clash.sql}) c)` : 'null::json'} as clash,
      (${live!.sql}) as live, (${seats!.sql}) as seats`;
    return { sql, bindings: parts.flatMap((p) => (p ? [...p.bindings] : [])) as Knex.RawBinding[] };
  }

  private factsFrom(r: FactsRow, event: EventRow, personId: number, today: string, withClash: boolean, missing: MissingPrerequisitesQuery): JoinFacts {
    const fallback = this.facts(missing);
    return {
      missingPrerequisites: (e, p, d) =>
        e === event.id && p === personId && d === today ? Promise.resolve(r.missing) : fallback.missingPrerequisites(e, p, d),
      clash: (p, e) =>
        withClash && p === personId && e.id === event.id
          ? Promise.resolve(r.clash ? { title: r.clash.title, starts_at: new Date(r.clash.starts_at) } : undefined)
          : fallback.clash(p, e),
      liveStatus: (p, e) => (p === personId && e === event.id ? Promise.resolve(r.live ?? undefined) : fallback.liveStatus(p, e)),
      seatsTaken: (e) => (e === event.id ? Promise.resolve(Number(r.seats)) : fallback.seatsTaken(e)),
    };
  }

  private clashQuery(personId: number, event: EventRow): Knex.QueryBuilder {
    return (
      this.db
        .table('person_events as pe')
        .join('events as e', 'e.id', 'pe.event_id')
        .where('pe.person_id', personId)
        .where('pe.status', 'signed_on')
        .where('e.cancelled', false)
        .whereNot('e.id', event.id)
        // Modules of the same course overlap their parent by design.
        .where((w) => void w.whereNull('e.parent_id').orWhereNot('e.parent_id', event.id))
        .where('e.starts_at', '<', event.ends_at)
        .where('e.ends_at', '>', event.starts_at)
        .orderBy('e.starts_at')
    );
  }

  private liveQuery(personId: number, eventId: number): Knex.QueryBuilder {
    return this.db.table('person_events').where({ person_id: personId, event_id: eventId }).whereNot('status', 'signed_off').first('status');
  }

  private seatsQuery(eventId: number): Knex.QueryBuilder {
    return this.db.table('person_events').where({ event_id: eventId, status: 'signed_on' }).count('* as count');
  }
}
