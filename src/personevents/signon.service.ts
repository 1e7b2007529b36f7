import { TenantClock } from '../platform/time/tenant-clock';
import { inject, injectable, type DependencyContainer } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER, TENANT, TENANT_DB } from '../platform/tokens';
import type { TenantDb } from '../platform/tenancy/tenant-db';
import type { Tenant } from '../platform/tenancy/tenant';
import type { Principal } from '../platform/auth/principal';
import { ApiError } from '../platform/errors/api-error';
import { EventsRepository, type EventRow } from '../events/events.repository';
import { checkJoin } from '../events/join-check';
import type { PersonRow } from './target-person';
import { PersonEventsRepository } from './personevents.repository';
import { presentPersonEvent, type PersonEventRow } from './person-event.presenter';
import { OUTBOUND_EVENTS, type OutboundEvents, type OutboundEventType } from '../platform/outbound/outbound-events';
import { WAITLIST_NOTIFIER } from './waitlist-notifier';

export interface SignOnResult {
  personEvent: PersonEventRow;
  message: string;
}

@injectable()
export class SignOnService {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(EventsRepository) private readonly events: EventsRepository,
    @inject(PersonEventsRepository) private readonly personEvents: PersonEventsRepository,
    @inject(LOGGER) private readonly log: Logger,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(OUTBOUND_EVENTS) private readonly outbound: OutboundEvents,
  ) {}

  /** The person event as it is in `tx` (after the change), to the webhooks. */
  private async recordEvent(tx: TenantDb, type: OutboundEventType, personEventId: number): Promise<void> {
    await this.outbound.record(tx, type, async () => presentPersonEvent(await this.personEvents.byId(personEventId, tx)));
  }

  /** The event row locked for this transaction: sign-ons and sign-offs of one event queue here. */
  private async lockEvent(tx: TenantDb, eventId: number): Promise<EventRow> {
    const event = await new EventsRepository(tx).findForUpdate(eventId);
    if (!event) throw ApiError.notFound(`event ${eventId}`);
    return event;
  }

  async signOn(person: PersonRow, eventId: number, order: { order_id?: number; order_reference?: string }): Promise<SignOnResult> {
    const orders = this.tenant.config.get('order_system.enabled');
    const notes: string[] = [];
    if (!orders && (order.order_id !== undefined || order.order_reference !== undefined)) {
      notes.push('order_id/order_reference ignored: the order system is not enabled for this tenant');
    }
    if (orders && order.order_id !== undefined && order.order_reference !== undefined) {
      notes.push('order_reference ignored because order_id is given');
    }
    const id = await this.db.transaction(async (tx) => {
      const event = await this.lockEvent(tx, eventId);
      if (event.parent_id !== null) {
        throw new ApiError(409, `event ${eventId} is a module of event ${event.parent_id}; sign on to the course event instead`);
      }
      const check = await checkJoin(tx, event, person, this.tenant.config, this.clock);
      if (!check.can_join) {
        const why = check.reason.filter((r) => r !== 'event_full').map((r) => check.texts[r]).join(' ');
        throw new ApiError(409, `cannot sign ${person.user_name} on: ${why}`, { can_join: false, reason: check.reason });
      }
      let orderId: number | null = null;
      if (orders && order.order_id !== undefined) {
        // Someone else's order would bill them for this sign-on (and tell the caller it exists).
        const found = await tx.table('orders').where({ id: order.order_id, person_id: person.id }).first('id');
        if (!found) throw ApiError.malformed('order_id', `no order ${order.order_id} of ${person.user_name} exists`);
        orderId = found.id;
      } else if (orders && order.order_reference !== undefined) {
        const [created] = await tx.table('orders').insert({ reference: order.order_reference, person_id: person.id }).returning('id');
        orderId = created.id;
      }
      const status = check.places === 0 ? 'waitlist' : 'signed_on';
      if (status === 'waitlist') notes.unshift('the event is full: placed on the wait list');
      const [row] = await tx.table('person_events').insert({ person_id: person.id, event_id: eventId, status, order_id: orderId }).returning('id');
      // a wait-list place too: data.status says which
      await this.recordEvent(tx, 'personevent.signed_on', row.id);
      return row.id as number;
    });
    await this.outbound.committed();
    const personEvent = await this.personEvents.byId(id);
    const head = personEvent.status === 'waitlist' ? `${person.user_name} is on the wait list` : `${person.user_name} is signed on`;
    return { personEvent, message: [head, ...notes].join('; ') };
  }

  /**
   * Signs off and gives each seat that became free to the longest-waiting person on the
   * wait list (first come, first served), telling the optional notifier in the same transaction.
   */
  async signOff(user: Principal, person: PersonRow, eventId: number, container: DependencyContainer): Promise<SignOnResult> {
    const notifier = container.isRegistered(WAITLIST_NOTIFIER, true) ? container.resolve(WAITLIST_NOTIFIER) : null;
    const { id, promoted } = await this.db.transaction(async (tx) => {
      const event = await this.lockEvent(tx, eventId);
      if (event.locked && !user.superuser) throw new ApiError(409, `event ${eventId} is locked; sign-ons cannot change`);
      const live = await tx.table('person_events').where({ person_id: person.id, event_id: eventId }).whereNot('status', 'signed_off').first('id');
      if (!live) throw ApiError.notFound(`sign-on of ${person.user_name} to event ${eventId}`);
      await tx.table('person_events').where({ id: live.id }).update({ status: 'signed_off', signed_off_at: tx.fn.now(), updated_at: tx.fn.now() });
      await this.recordEvent(tx, 'personevent.signed_off', live.id);
      const promoted: number[] = [];
      if (!event.cancelled) {
        const [{ count }] = await tx.table('person_events').where({ event_id: eventId, status: 'signed_on' }).count<{ count: string }[]>('* as count');
        const free = event.max_participants === null ? Infinity : event.max_participants - Number(count);
        if (free > 0) {
          const q = tx.table('person_events').where({ event_id: eventId, status: 'waitlist' }).orderBy([{ column: 'created_at' }, { column: 'id' }]).select('id');
          const waiting: { id: number }[] = await (free === Infinity ? q : q.limit(free));
          for (const w of waiting) {
            await tx.table('person_events').where({ id: w.id }).update({ status: 'signed_on', updated_at: tx.fn.now() });
            // in the same transaction: a crash after the commit cannot lose the notice
            await notifier?.notifyPromoted(tx, w.id);
            await this.recordEvent(tx, 'personevent.promoted', w.id);
            promoted.push(w.id);
          }
        }
      }
      return { id: live.id as number, promoted };
    });
    if (promoted.length) await notifier?.committed?.();
    await this.outbound.committed();
    const personEvent = await this.personEvents.byId(id);
    const tail = promoted.length ? `; ${promoted.length} person(s) moved from the wait list to a seat` : '';
    return { personEvent, message: `${person.user_name} is signed off${tail}` };
  }
}
