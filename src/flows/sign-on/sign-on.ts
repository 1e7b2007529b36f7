import { TenantClock } from '../../platform/time/tenant-clock';
import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { UnitOfWork, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { OUTBOUND_EVENTS, type OutboundEventType } from '../../platform/outbound/outbound-events';
import {
  EventsRepository,
  JoinCheckRepository,
  PersonEventsRepository,
  checkJoin,
  presentPersonEvent,
  type EventRow,
  type JoinCheck,
  type JoinClock,
  type JoinFacts,
  type JoinPerson,
  type OrderRef,
  type PersonEventRow,
} from '../../courses';
import { missingPrerequisites } from './missing-prerequisites';
import { SignOnViewsFlow } from './sign-on-views';
import { promoteFromWaitlist } from './waitlist-promotion';
import { CourseCalendar } from '../calendar/calendar-invites';
import { CalendarRepository } from '../../courses';

/** Facts that block nothing: checkJoin with them judges only what needs no table. */
const NOTHING_BLOCKS: JoinFacts = {
  missingPrerequisites: async () => [],
  clash: async () => undefined,
  liveStatus: async () => undefined,
  seatsTaken: async () => 0,
};

export interface SignOnResult {
  personEvent: PersonEventRow;
  message: string;
}

/**
 * Sign-on, check_join and sign-off with the wait list: courses' sign-ons checked against the
 * catalogue's registrations (prerequisites), and a seat given from the wait list told to the person
 * (people's contact, messaging's notice) in the sign-off's transaction.
 */
@injectable()
export class SignOnFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: Pick<UnitOfWork, 'run'>,
    @inject(TENANT) private readonly tenant: Pick<Tenant, 'config'>,
    @inject(SignOnViewsFlow) private readonly views: Pick<SignOnViewsFlow, 'byId'>,
    @inject(JoinCheckRepository) private readonly joinChecks: Pick<JoinCheckRepository, 'facts'>,
    @inject(TenantClock) private readonly clock: JoinClock,
  ) {}

  /** check_join: whether `person` may sign on to `event`, each fact read by a query of its own. */
  check(event: EventRow, person: JoinPerson): Promise<JoinCheck> {
    return checkJoin(this.joinChecks.facts(missingPrerequisites), event, person, this.tenant.config, this.clock);
  }

  /** The person event as it is in `tx` (after the change), to the webhooks. */
  private async recordEvent(tx: Transaction, type: OutboundEventType, personEventId: number): Promise<void> {
    await tx.get(OUTBOUND_EVENTS).record(type, async () => presentPersonEvent(await tx.get(SignOnViewsFlow).byId(personEventId)));
  }

  /** The event row locked for this transaction: sign-ons and sign-offs of one event queue here. */
  private async lockEvent(tx: Transaction, eventId: number): Promise<EventRow> {
    const event = await tx.get(EventsRepository).findForUpdate(eventId);
    if (!event) throw ApiError.notFound(`event ${eventId}`);
    return event;
  }

  /**
   * One transaction, three statements: the order work and the webhook endpoints are asked for
   * first (queued on the connection, not awaited), then the event row is locked, then check_join's
   * facts and the insert they allow are one statement (JoinCheckRepository.prefetchAndSignOn).
   * The answer is built from what is known, so nothing is read after the commit.
   */
  async signOn(
    person: JoinPerson & { deactivated_at?: Date | null },
    eventId: number,
    order: { order_id?: number; order_reference?: string },
  ): Promise<SignOnResult> {
    // the route's rule read the person: a leaver takes no new places (PersonLifecycleFlow ended their coming ones)
    if (person.deactivated_at) throw new ApiError(409, `cannot sign ${person.user_name} on: the person is deactivated`);
    const orders = this.tenant.config.get('order_system.enabled');
    const notes: string[] = [];
    if (!orders && (order.order_id !== undefined || order.order_reference !== undefined)) {
      notes.push('order_id/order_reference ignored: the order system is not enabled for this tenant');
    }
    if (orders && order.order_id !== undefined && order.order_reference !== undefined) {
      notes.push('order_reference ignored because order_id is given');
    }
    const personEvent = await this.uow.run(async (tx) => {
      const repo = tx.get(PersonEventsRepository);
      // Needs no lock: a refused sign-on rolls the new order back with everything else.
      const ordered = orders ? this.orderFor(repo, person, order) : Promise.resolve(null);
      ordered.catch(() => undefined); // awaited below unless the lock fails first
      tx.get(OUTBOUND_EVENTS).expect?.('personevent.signed_on');
      const event = await this.lockEvent(tx, eventId);
      if (event.parent_id !== null) {
        throw new ApiError(409, `event ${eventId} is a module of event ${event.parent_id}; sign on to the course event instead`);
      }
      const chosen = await ordered;
      // the checks that read no table, with facts that block nothing: may the statement insert?
      const allowed = chosen !== undefined && (await checkJoin(NOTHING_BLOCKS, event, person, this.tenant.config, this.clock)).can_join;
      const { facts, inserted } = await tx
        .get(JoinCheckRepository)
        .prefetchAndSignOn(
          event,
          person.id,
          this.clock.today(),
          this.tenant.config.get('signon.block_overlapping'),
          { allowed, orderId: chosen?.id ?? null },
          missingPrerequisites,
        );
      const check = await checkJoin(facts, event, person, this.tenant.config, this.clock);
      if (!check.can_join) {
        const why = check.reason
          .filter((r) => r !== 'event_full')
          .map((r) => check.texts[r])
          .join(' ');
        throw new ApiError(409, `cannot sign ${person.user_name} on: ${why}`, { can_join: false, reason: check.reason });
      }
      // Someone else's order would bill them for this sign-on (and tell the caller it exists).
      if (chosen === undefined) throw ApiError.malformed('order_id', `no order ${order.order_id} of ${person.user_name} exists`);
      const status = check.places === 0 ? 'waitlist' : 'signed_on';
      if (!inserted || inserted.status !== status)
        throw new Error(`sign-on of ${person.id} to ${eventId}: check_join says ${status}, the statement wrote ${inserted?.status ?? 'nothing'}`);
      if (status === 'waitlist') notes.unshift('the event is full: placed on the wait list');
      const row: PersonEventRow = {
        ...inserted,
        person_id: person.id,
        user_name: person.user_name,
        event_id: event.id,
        event_title: event.title,
        starts_at: event.starts_at,
        ends_at: event.ends_at,
        order_reference: chosen?.reference ?? null,
      };
      // a wait-list place too: data.status says which
      await tx.get(OUTBOUND_EVENTS).record('personevent.signed_on', presentPersonEvent(row));
      // the confirmation with its calendar invite (a wait-list place gets it when promoted)
      if (status === 'signed_on') await (await CourseCalendar.of(tx, event.id))?.confirmSeat(person.id);
      return row;
    });
    const head = personEvent.status === 'waitlist' ? `${person.user_name} is on the wait list` : `${person.user_name} is signed on`;
    return { personEvent, message: [head, ...notes].join('; ') };
  }

  /** The order the sign-on goes on: the person's own order_id (undefined when it is not theirs), a new one by reference, or none. */
  private async orderFor(
    repo: PersonEventsRepository,
    person: JoinPerson,
    order: { order_id?: number; order_reference?: string },
  ): Promise<OrderRef | null | undefined> {
    if (order.order_id !== undefined) return repo.orderOf(order.order_id, person.id);
    if (order.order_reference !== undefined) return repo.createOrder(order.order_reference, person.id);
    return null;
  }

  /**
   * Signs off and gives each seat that became free to the longest-waiting person on the
   * wait list (first come, first served), writing each one's notice in the same transaction.
   */
  async signOff(user: Principal, person: Pick<JoinPerson, 'id' | 'user_name'>, eventId: number): Promise<SignOnResult> {
    const { id, promoted } = await this.uow.run(async (tx) => {
      const event = await this.lockEvent(tx, eventId);
      if (event.locked && !user.superuser) throw new ApiError(409, `event ${eventId} is locked; sign-ons cannot change`);
      const repo = tx.get(PersonEventsRepository);
      const live = await repo.liveId(person.id, eventId);
      if (live === undefined) throw ApiError.notFound(`sign-on of ${person.user_name} to event ${eventId}`);
      const seat = await tx.get(CalendarRepository).hasSeat(person.id, eventId);
      await repo.signOff(live);
      // a seat's invite is withdrawn (METHOD:CANCEL); a wait-list place had none
      if (seat) await (await CourseCalendar.of(tx, eventId))?.withdrawSeat(person.id);
      await this.recordEvent(tx, 'personevent.signed_off', live);
      const promoted = await promoteFromWaitlist(tx, event);
      return { id: live, promoted };
    });
    const personEvent = await this.views.byId(id);
    const tail = promoted.length ? `; ${promoted.length} person(s) moved from the wait list to a seat` : '';
    return { personEvent, message: `${person.user_name} is signed off${tail}` };
  }
}
