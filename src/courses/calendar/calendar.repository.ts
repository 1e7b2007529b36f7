import { createHash, randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { CalendarEntry } from './calendar-ics';

/** The SHA-256 (hex) of a feed token: what calendar_feeds keeps. */
export const feedTokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

const ENTRY_COLUMNS = `e.id, e.parent_id, e.title, e.description, e.starts_at, e.ends_at, e.calendar_sequence as sequence, e.cancelled,
  nullif(concat_ws(', ', l.name, nullif(l.address, '')), '') as location`;

/** A module event without a location of its own is held at its course event's. */
const LOCATION_JOIN = 'left join ?? ce on ce.id = e.parent_id left join ?? l on l.id = coalesce(e.location_id, ce.location_id)';

type EntryRow = CalendarEntry & { parent_id: number | null };

/**
 * What calendars are made of (issue 39): a course event with its module events as calendar
 * entries, the persons holding a seat, the invites' SEQUENCE, and the personal feed tokens
 * (calendar_feeds, only their SHA-256 stored).
 */
@injectable()
export class CalendarRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** The course event a sign-on is made to: the event itself, or its parent for a module event. */
  async courseOf(eventId: number): Promise<number | undefined> {
    const row = await this.db.table('events').where({ id: eventId }).first('id', 'parent_id');
    return row ? (row.parent_id ?? row.id) : undefined;
  }

  /** The course event first, then its module events by start: one entry per date. */
  async entries(courseEventId: number): Promise<CalendarEntry[]> {
    const { rows } = await this.db.raw<{ rows: EntryRow[] }>(
      `select ${ENTRY_COLUMNS} from ?? e ${LOCATION_JOIN}
        where e.id = ? or e.parent_id = ? order by (e.parent_id is not null), e.starts_at, e.id`,
      [this.db.ref('events'), this.db.ref('events'), this.db.ref('locations'), courseEventId, courseEventId],
    );
    return rows.map(({ parent_id: _p, ...e }) => e);
  }

  /** Persons with a seat (not the wait list) on the course event. */
  async seated(courseEventId: number): Promise<number[]> {
    const rows = await this.db.table('person_events').where({ event_id: courseEventId, status: 'signed_on' }).select('person_id').orderBy('id');
    return rows.map((r: { person_id: number }) => r.person_id);
  }

  /** Whether the person holds a seat (not a wait-list place) on the event. */
  async hasSeat(personId: number, eventId: number): Promise<boolean> {
    return !!(await this.db.table('person_events').where({ person_id: personId, event_id: eventId, status: 'signed_on' }).first('id'));
  }

  /** Raises the event's SEQUENCE (its start, end or location changed). */
  async bumpSequence(eventId: number): Promise<void> {
    await this.db.table('events').where({ id: eventId }).increment('calendar_sequence', 1);
  }

  /**
   * The person's feed: every course event they hold a seat on that is not cancelled and has not
   * ended by `now`, with its module events (cancelled ones left out), by start.
   */
  async upcoming(personId: number, now: Date): Promise<CalendarEntry[]> {
    const { rows } = await this.db.raw<{ rows: EntryRow[] }>(
      `with c as (
         select e.id from ?? pe join ?? e on e.id = pe.event_id
          where pe.person_id = ? and pe.status = 'signed_on' and not e.cancelled and e.ends_at > ?)
       select ${ENTRY_COLUMNS} from ?? e ${LOCATION_JOIN}
        where (e.id in (select id from c) or e.parent_id in (select id from c)) and not e.cancelled
        order by e.starts_at, e.id`,
      [this.db.ref('person_events'), this.db.ref('events'), personId, now, this.db.ref('events'), this.db.ref('events'), this.db.ref('locations')],
    );
    return rows.map(({ parent_id: _p, ...e }) => e);
  }

  /** Whether the person has a feed (a token not blanked by a secret-less archive), and since when. */
  async feedOf(personId: number): Promise<{ created_at: Date } | undefined> {
    return this.db.table('calendar_feeds').where({ person_id: personId }).whereNotNull('token_hash').first('created_at');
  }

  /**
   * A new feed token for the person when they have none (256 random bits, base64url; only its
   * hash is kept): answers the token, or null when a live one exists (its token is not known).
   */
  async issueFeed(personId: number, createdBy: number | null): Promise<{ token: string; created_at: Date } | null> {
    const token = randomBytes(32).toString('base64url');
    const { rows } = await this.db.raw<{ rows: { created_at: Date }[] }>(
      `insert into ?? as f (person_id, token_hash, created_by) values (?, ?, ?)
       on conflict (person_id) do update set token_hash = excluded.token_hash, created_by = excluded.created_by, created_at = now()
        where f.token_hash is null
       returning created_at`,
      [this.db.ref('calendar_feeds'), personId, feedTokenHash(token), createdBy],
    );
    return rows[0] ? { token, created_at: rows[0].created_at } : null;
  }

  /** Revokes the person's feed; whether there was one. */
  async revokeFeed(personId: number): Promise<boolean> {
    return (await this.db.table('calendar_feeds').where({ person_id: personId }).delete()) > 0;
  }

  /** The person a feed token belongs to. */
  async feedPerson(token: string): Promise<number | undefined> {
    const row = await this.db
      .table('calendar_feeds')
      .where({ token_hash: feedTokenHash(token) })
      .first('person_id');
    return row?.person_id;
  }
}
