import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import { heldRegistrations, joinCompetences } from '../../catalogue';
import type { EventRow } from './events.repository';
import type { JoinFacts } from './join-check';

/** The facts of check_join, from the tables (on the transaction that locked the event, when sign-on asks). */
@injectable()
export class JoinCheckRepository implements JoinFacts {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  missingPrerequisites(eventId: number, personId: number, today: string): Promise<{ id: number; title: string }[]> {
    const db = this.db;
    return joinCompetences(db.table('event_prerequisites as ep'), 'c', 'ep.competence_id')
      .where('ep.event_id', eventId)
      .whereNotExists(
        // held, as everywhere: a failed attempt (passed 0) is registered but does not qualify
        heldRegistrations(db, today).whereRaw('pc.competence_id = ep.competence_id').where('pc.person_id', personId),
      )
      .orderBy('c.title')
      .select('c.id', 'c.title');
  }

  clash(personId: number, event: EventRow): Promise<{ title: string; starts_at: Date } | undefined> {
    return this.db
      .table('person_events as pe')
      .join('events as e', 'e.id', 'pe.event_id')
      .where('pe.person_id', personId)
      .where('pe.status', 'signed_on')
      .where('e.cancelled', false)
      .whereNot('e.id', event.id)
      // Modules of the same course overlap their parent by design.
      .where((w) => w.whereNull('e.parent_id').orWhereNot('e.parent_id', event.id))
      .where('e.starts_at', '<', event.ends_at)
      .where('e.ends_at', '>', event.starts_at)
      .orderBy('e.starts_at')
      .first('e.title', 'e.starts_at');
  }

  async liveStatus(personId: number, eventId: number): Promise<string | undefined> {
    const live = await this.db.table('person_events').where({ person_id: personId, event_id: eventId }).whereNot('status', 'signed_off').first('status');
    return live?.status;
  }

  async seatsTaken(eventId: number): Promise<number> {
    const [{ count }] = await this.db.table('person_events').where({ event_id: eventId, status: 'signed_on' }).count<{ count: string }[]>('* as count');
    return Number(count);
  }
}
