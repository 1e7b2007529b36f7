import { inject, injectable } from 'tsyringe';
import { UnitOfWork, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';
import { TenantClock } from '../../platform/time/tenant-clock';
import { EventWrites, EventsRepository, type EventRow } from '../../courses';
import { PersonDirectory, PersonManagers } from '../../people';
import { EventCancellationNotice } from '../../messaging';
import { recordEventChange } from './event-authoring';
import { CourseCalendar } from '../calendar/calendar-invites';

export interface CancelResult {
  message: string;
  /** Places (seats and wait list) ended, notices written (participants and managers' copies). */
  ended: number;
  notices: number;
}

/**
 * Cancel, uncancel, lock, unlock and delete an event. A cancellation is one transaction: the event
 * row locked (sign-ons and sign-offs of it wait), it and its module events marked cancelled, every
 * live place (seat and wait list) ended, each participant told and each of their nearest managers
 * sent a copy (people's PersonManagers, messaging's EventCancellationNotice, through the outbox),
 * one `event.cancelled` webhook event and the audit entry. A second cancel finds it cancelled and
 * changes nothing.
 */
@injectable()
export class EventCancellationFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TenantClock) private readonly clock: TenantClock,
  ) {}

  private async lock(tx: Transaction, id: number): Promise<EventRow> {
    const event = await tx.get(EventsRepository).findForUpdate(id);
    if (!event) throw ApiError.notFound(`event ${id}`);
    return event;
  }

  async cancel(user: Principal, id: number, reason: string | null): Promise<CancelResult> {
    return this.uow.run(async (tx) => {
      tx.get(OUTBOUND_EVENTS).expect?.('event.cancelled');
      const event = await this.lock(tx, id);
      if (event.cancelled) return { message: `event ${id} is already cancelled; nothing changed`, ended: 0, notices: 0 };
      const writes = tx.get(EventWrites);
      const cancelled = await writes.cancel(id, reason);
      const places = await writes.endPlaces(cancelled);
      const personIds = places.map((p) => p.person_id);
      const contacts = await tx.get(PersonManagers).contacts(personIds);
      const managers = await tx.get(PersonManagers).nearest(personIds);
      const names = await tx.get(PersonDirectory).userNames(personIds);
      // the seats' invites withdrawn: METHOD:CANCEL, every date STATUS:CANCELLED (the event is cancelled now)
      const calendar = await CourseCalendar.of(tx, id);
      const notices = await tx.get(EventCancellationNotice).write({
        eventTitle: event.title,
        startsAt: event.starts_at,
        reason,
        places: places.flatMap((p) => {
          const contact = contacts.get(p.person_id);
          if (!contact) return [];
          return [
            {
              participant: { ...contact, user_name: names.get(p.person_id) ?? String(p.person_id) },
              status: p.status,
              managers: managers.get(p.person_id) ?? [],
              calendar: p.status === 'signed_on' ? calendar?.textFor(contact, 'CANCEL') : null,
            },
          ];
        }),
      });
      await recordEventChange(tx, user, 'event.cancelled', id, {
        fields: ['cancelled'],
        reason,
        module_events: cancelled.filter((e) => e !== id),
        places_ended: places.length,
      });
      return { message: `event ${id} cancelled; ${places.length} place(s) ended, ${notices} notice(s) written`, ended: places.length, notices };
    });
  }

  /** Lifts a cancellation before the event starts (409 once it has); ended places stay ended. */
  async uncancel(user: Principal, id: number): Promise<string> {
    return this.uow.run(async (tx) => {
      const event = await this.lock(tx, id);
      if (!event.cancelled) return `event ${id} is not cancelled; nothing changed`;
      if (event.parent_id !== null) {
        const parent = await tx.get(EventsRepository).find(event.parent_id);
        if (parent?.cancelled) throw new ApiError(409, `event ${id} is a module of cancelled event ${parent.id}; uncancel that one`);
      }
      if (this.clock.now() >= event.starts_at)
        throw new ApiError(409, `event ${id} started ${event.starts_at.toISOString()}; a cancellation cannot be lifted once the event has started`);
      await tx.get(EventWrites).uncancel(id);
      await recordEventChange(tx, user, 'event.updated', id, { fields: ['cancelled'] }, 'event.uncancelled');
      return `event ${id} is no longer cancelled; the places ended by the cancellation stay ended (persons sign on again)`;
    });
  }

  async setLocked(user: Principal, id: number, locked: boolean): Promise<string> {
    return this.uow.run(async (tx) => {
      const event = await this.lock(tx, id);
      if (event.locked === locked) return `event ${id} is already ${locked ? 'locked' : 'unlocked'}; nothing changed`;
      await tx.get(EventWrites).setLocked(id, locked);
      await recordEventChange(tx, user, 'event.updated', id, { fields: ['locked'] }, locked ? 'event.locked' : 'event.unlocked');
      return locked ? `event ${id} locked: sign-ons and sign-offs are refused` : `event ${id} unlocked`;
    });
  }

  /** Deletes an event nobody is or was ever signed on to (its module events too); else 409. */
  async delete(user: Principal, id: number): Promise<void> {
    await this.uow.run(async (tx) => {
      const event = await this.lock(tx, id);
      const writes = tx.get(EventWrites);
      const taken = await writes.everTaken(id);
      if (taken > 0) {
        throw new ApiError(
          409,
          `event ${id} has ${taken} sign-on(s) (live, on the wait list or signed off): its history stays; cancel it instead (PUT /api/events/${id}/cancel)`,
        );
      }
      const data = {
        event_id: event.id,
        competence_id: event.competence_id,
        title: event.title,
        startdate: event.starts_at,
        enddate: event.ends_at,
        deleted: true,
      };
      await writes.delete(id);
      await tx.get(OUTBOUND_EVENTS).record('event.deleted', data);
      await recordEventChange(tx, user, 'event.deleted', id, { fields: [], title: event.title });
    });
  }
}
