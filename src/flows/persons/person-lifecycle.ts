import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER, TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { UnitOfWork, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { actingPersonId, type Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';
import { TenantClock } from '../../platform/time/tenant-clock';
import { PersonsRepository, assertMayChange, presentPersonSimple, type PersonRow } from '../../people';
import { CalendarRepository, EventsRepository, PersonEventsRepository, presentPersonEvent } from '../../courses';
import { SessionStore } from '../../identity';
import { SignOnViewsFlow } from '../sign-on/sign-on-views';
import { promoteFromWaitlist } from '../sign-on/waitlist-promotion';
import { CourseCalendar } from '../calendar/calendar-invites';

export interface LifecycleResult {
  /** The person's row as it is now (deactivated_at set or null). */
  person: PersonRow;
  /** false: the person already was in the state asked for, and nothing was written. */
  changed: boolean;
  /** Deactivation: live places (seat or wait list) in events not started yet, ended. */
  signOnsEnded: number;
  /** Deactivation: persons moved from a wait list to a seat the ended places freed. */
  promoted: number;
  message: string;
}

/** Who did it: the API (a person route), the bulk import (`deactivate_missing=1`) or SCIM provisioning (`active`, DELETE); written in the audit entry. */
export type LifecycleVia = 'api' | 'import' | 'scim';

/**
 * PUT /api/persons/[user_name]/deactivate and /reactivate, and the bulk import's deactivate_missing:
 * a leaver is deactivated (not erased: their history stays), and can be reactivated.
 *
 * One transaction (uow.run): the person's row locked and marked (people), every live place of
 * theirs in an event not started yet ended, each event locked in turn and its wait list promoted
 * as a sign-off does (courses, `promoteFromWaitlist` with messaging's notice and the
 * `personevent.signed_off` / `personevent.promoted` webhooks), the audit entry and the
 * `person.deactivated` webhook. After the commit the person's sessions end (identity); should that
 * fail, the account refuses them anyway (PrincipalLoader), and the cached principals go on every
 * API process at the commit (the principal_changed trigger, migration 210).
 * Reactivation restores login (the password is untouched) but not the ended places.
 * Access is the caller's to decide (the route's rule; the import is for superusers); this flow
 * refuses acting on oneself and a non-superuser acting on a superuser (403).
 */
@injectable()
export class PersonLifecycleFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(SessionStore) private readonly sessions: SessionStore,
    @inject(LOGGER) private readonly log: Logger,
  ) {}

  /** Deactivates `person` (by id; user_name for the 404 and messages). Already deactivated: changed false, nothing written. Joins a caller's transaction (nested uow.run). */
  async deactivate(user: Principal, person: Pick<PersonRow, 'id' | 'user_name'>, via: LifecycleVia = 'api'): Promise<LifecycleResult> {
    return this.uow.run(async (tx) => {
      const events = tx.get(OUTBOUND_EVENTS);
      // asked before the row lock is taken, as the sign-on does
      events.expect?.('person.deactivated');
      const row = await this.lock(tx, user, person, 'deactivate');
      if (row.deactivated_at !== null) return unchanged(row, `${row.user_name} is already deactivated; nothing changed`);
      const now = this.clock.now();
      const updated = (await tx.get(PersonsRepository).setDeactivated(row.id, now, actingPersonId(user)))!;
      const { ended, promoted } = await this.endUpcomingPlaces(tx, row.id, now);
      tx.afterCommit(() =>
        this.sessions
          .destroyAllFor(this.tenant, row.id)
          .catch((err) => this.log.error({ err, personId: row.id }, 'deactivation: ending sessions failed (the account refuses them anyway)')),
      );
      await tx.get(AuditTrail).record({
        type: 'person.deactivated',
        actor: user.userName,
        subject: row.user_name,
        details: { person_id: row.id, via, signons_ended: ended, promoted },
      });
      await events.record('person.deactivated', { ...presentPersonSimple(updated), deactivated_at: updated.deactivated_at });
      const tail = ended ? `; ${ended} sign-on(s) to coming events ended${promoted ? `, ${promoted} person(s) moved from the wait list to a seat` : ''}` : '';
      return { person: updated, changed: true, signOnsEnded: ended, promoted, message: `${row.user_name} is deactivated${tail}` };
    });
  }

  /** Reactivates `person`: login works again with the same password; ended sign-ons stay ended. Not deactivated: changed false, nothing written. */
  async reactivate(user: Principal, person: Pick<PersonRow, 'id' | 'user_name'>, via: LifecycleVia = 'api'): Promise<LifecycleResult> {
    return this.uow.run(async (tx) => {
      const row = await this.lock(tx, user, person, 'reactivate');
      if (row.deactivated_at === null) return unchanged(row, `${row.user_name} is not deactivated; nothing changed`);
      const updated = (await tx.get(PersonsRepository).setDeactivated(row.id, null, null))!;
      await tx.get(AuditTrail).record({
        type: 'person.reactivated',
        actor: user.userName,
        subject: row.user_name,
        details: { person_id: row.id, via, deactivated_at: row.deactivated_at },
      });
      await tx.get(OUTBOUND_EVENTS).record('person.reactivated', presentPersonSimple(updated));
      return {
        person: updated,
        changed: true,
        signOnsEnded: 0,
        promoted: 0,
        message: `${row.user_name} is reactivated; sign-ons ended by the deactivation stay ended`,
      };
    });
  }

  /** The person's row, locked until the commit; 404 when gone, 403 on oneself and (not a superuser) on a superuser. */
  private async lock(tx: Transaction, user: Principal, person: Pick<PersonRow, 'id' | 'user_name'>, action: string): Promise<PersonRow> {
    const row = await tx.get(PersonsRepository).findForUpdate(person.id);
    if (!row) throw ApiError.notFound(`person "${person.user_name}"`);
    if (row.id === user.personId) throw ApiError.forbidden(`not authorised to ${action} yourself: ask your manager or a superuser`);
    assertMayChange(user, row);
    return row;
  }

  /**
   * Ends the person's live places in events that start after `now`, one event at a time, each
   * locked as a sign-off locks it (so sign-ons and sign-offs of it queue), in event id order, and
   * promotes its wait list. Read again until none is left: a sign-on committed meanwhile is ended too.
   */
  private async endUpcomingPlaces(tx: Transaction, personId: number, now: Date): Promise<{ ended: number; promoted: number }> {
    const repo = tx.get(PersonEventsRepository);
    const seen = new Set<number>();
    let ended = 0;
    let promoted = 0;
    for (;;) {
      const places = (await repo.liveUpcoming(personId, now)).filter((p) => !seen.has(p.id));
      if (places.length === 0) return { ended, promoted };
      for (const p of places) seen.add(p.id);
      for (const eventId of [...new Set(places.map((p) => p.event_id))]) {
        const event = await tx.get(EventsRepository).findForUpdate(eventId);
        const live = event && (await repo.liveId(personId, eventId));
        if (!event || live === undefined) continue;
        const seat = await tx.get(CalendarRepository).hasSeat(personId, eventId);
        await repo.signOff(live);
        // the seat's calendar invite withdrawn (METHOD:CANCEL), as on a sign-off
        if (seat) await (await CourseCalendar.of(tx, eventId))?.withdrawSeat(personId);
        ended++;
        await tx.get(OUTBOUND_EVENTS).record('personevent.signed_off', async () => presentPersonEvent(await tx.get(SignOnViewsFlow).byId(live)));
        promoted += (await promoteFromWaitlist(tx, event)).length;
      }
    }
  }
}

function unchanged(row: PersonRow, message: string): LifecycleResult {
  return { person: row, changed: false, signOnsEnded: 0, promoted: 0, message };
}
