import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { EventRow } from './events.repository';

/** The columns of an event a create or change writes (the row's own names). */
export interface EventColumns {
  parent_id?: number | null;
  competence_id?: number;
  title?: string;
  description?: string | null;
  location_id?: number | null;
  host_organisation_id?: number | null;
  instructor_id?: number | null;
  starts_at?: Date;
  ends_at?: Date;
  signon_opens?: Date | null;
  signon_closes?: Date | null;
  max_participants?: number | null;
  min_age?: number | null;
  custom_attributes?: Record<string, unknown>;
}

/** A live place on an event (seat or wait list) that a cancellation ends. */
export interface EndedPlace {
  id: number;
  person_id: number;
  status: 'signed_on' | 'waitlist';
}

/** Another (not cancelled) event at a location overlapping a time: the clash a create or change names. */
export interface LocationClash {
  id: number;
  title: string;
  starts_at: Date;
  ends_at: Date;
}

/**
 * Writes of the calendar (issue 35): events created, changed, cancelled, locked and deleted, with
 * their prerequisites and the tombstones of deleted events. Used inside a flow's transaction
 * (`tx.get(EventWrites)`); reads of the views stay in EventsRepository.
 */
@injectable()
export class EventWrites {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async insert(columns: EventColumns & Pick<EventRow, 'competence_id' | 'title' | 'starts_at' | 'ends_at'>): Promise<number> {
    const [row] = await this.db.table('events').insert(this.json(columns)).returning('id');
    return row.id;
  }

  /** Changes the given columns (updated_at too: the changes feed). */
  async update(id: number, columns: EventColumns): Promise<void> {
    await this.db
      .table('events')
      .where({ id })
      .update({ ...this.json(columns), updated_at: this.db.fn.now() });
  }

  private json(columns: EventColumns): Record<string, unknown> {
    const out: Record<string, unknown> = { ...columns };
    if (columns.custom_attributes !== undefined) out.custom_attributes = JSON.stringify(columns.custom_attributes);
    return out;
  }

  /** Replaces the event's prerequisite competences. */
  async setPrerequisites(eventId: number, competenceIds: readonly number[]): Promise<void> {
    await this.db.table('event_prerequisites').where({ event_id: eventId }).delete();
    if (competenceIds.length)
      await this.db.table('event_prerequisites').insert([...new Set(competenceIds)].map((c) => ({ event_id: eventId, competence_id: c })));
  }

  /** Signed-on persons (seats taken) of an event. */
  async seatsTaken(eventId: number): Promise<number> {
    const [{ count }] = await this.db.table('person_events').where({ event_id: eventId, status: 'signed_on' }).count<{ count: string }[]>('* as count');
    return Number(count);
  }

  /** The module events of a course event, by start. */
  async modules(parentId: number): Promise<Pick<EventRow, 'id' | 'title' | 'starts_at' | 'ends_at'>[]> {
    return this.db
      .table('events')
      .where({ parent_id: parentId })
      .orderBy([{ column: 'starts_at' }, { column: 'id' }])
      .select('id', 'title', 'starts_at', 'ends_at');
  }

  /** The earliest other, not cancelled event at the location overlapping from..to (`except`: the event itself and its family). */
  async locationClash(locationId: number, from: Date, to: Date, except: readonly number[]): Promise<LocationClash | undefined> {
    const q = this.db
      .table('events')
      .where({ location_id: locationId, cancelled: false })
      .where('starts_at', '<', to)
      .where('ends_at', '>', from)
      .orderBy([{ column: 'starts_at' }, { column: 'id' }])
      .first('id', 'title', 'starts_at', 'ends_at');
    if (except.length) q.whereNotIn('id', except).where((w) => void w.whereNull('parent_id').orWhereNotIn('parent_id', except));
    return q;
  }

  /** Marks the event and its module events cancelled (those not cancelled yet); returns their ids. */
  async cancel(id: number, reason: string | null): Promise<number[]> {
    const rows = await this.db
      .table('events')
      .where((w) => void w.where({ id }).orWhere({ parent_id: id }))
      .where({ cancelled: false })
      .update({ cancelled: true, cancel_reason: reason, cancelled_at: this.db.fn.now(), updated_at: this.db.fn.now() })
      .returning('id');
    return rows.map((r: { id: number }) => r.id);
  }

  /** Lifts the cancellation of the event and of its module events. */
  async uncancel(id: number): Promise<void> {
    await this.db
      .table('events')
      .where((w) => void w.where({ id }).orWhere({ parent_id: id }))
      .update({ cancelled: false, cancel_reason: null, cancelled_at: null, updated_at: this.db.fn.now() });
  }

  async setLocked(id: number, locked: boolean): Promise<void> {
    await this.db.table('events').where({ id }).update({ locked, updated_at: this.db.fn.now() });
  }

  /** Ends every live place (seat and wait list) on these events; returns what was ended (status before), longest-standing first. */
  async endPlaces(eventIds: readonly number[]): Promise<EndedPlace[]> {
    if (!eventIds.length) return [];
    const { rows } = await this.db.raw<{ rows: EndedPlace[] }>(
      `with live as (
         select id, person_id, status, created_at from ?? where event_id = any(?) and status <> 'signed_off' for update),
       ended as (
         update ?? pe set status = 'signed_off', signed_off_at = now(), updated_at = now() from live where pe.id = live.id)
       select id, person_id, status from live order by created_at, id`,
      [this.db.ref('person_events'), [...eventIds], this.db.ref('person_events')],
    );
    return rows;
  }

  /** Whether anybody is or was ever signed on (or waiting) to the event or one of its module events. */
  async everTaken(id: number): Promise<number> {
    const [{ count }] = await this.db
      .table('person_events')
      .whereIn('event_id', this.db.table('events').where({ id }).orWhere({ parent_id: id }).select('id'))
      .count<{ count: string }[]>('* as count');
    return Number(count);
  }

  /** Deletes the event (its module events and prerequisites go with it) and leaves a tombstone for each. */
  async delete(id: number): Promise<void> {
    await this.db.raw(
      `insert into ?? (event_id, parent_id, competence_id, title, starts_at, ends_at)
       select id, parent_id, competence_id, title, starts_at, ends_at from ?? where id = ? or parent_id = ?`,
      [this.db.ref('event_deletions'), this.db.ref('events'), id, id],
    );
    await this.db.table('events').where({ parent_id: id }).delete();
    await this.db.table('events').where({ id }).delete();
  }
}
