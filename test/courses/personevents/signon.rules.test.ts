import { describe, expect, it } from 'vitest';
import { SignOnFlow } from '../../../src/flows/sign-on/sign-on';
import { SignOnViewsFlow } from '../../../src/flows/sign-on/sign-on-views';
import { PersonEventsRepository } from '../../../src/courses/personevents/personevents.repository';
import { EventsRepository, type EventRow } from '../../../src/courses/events/events.repository';
import { JoinCheckRepository } from '../../../src/courses/events/join-check.repository';
import { PersonDirectory } from '../../../src/people';
import { WaitlistPromotionNotice, CalendarNotice, NoticeRenderer, type SeatPromotion, type CalendarNoticeItem } from '../../../src/messaging';
import { CalendarRepository } from '../../../src/courses';
import { PersonManagers } from '../../../src/people';
import { TENANT } from '../../../src/platform/tokens';
import type { Principal } from '../../../src/platform/auth/principal';
import { ApiError } from '../../../src/platform/errors/api-error';
import { clockAt, fakeUnitOfWork, tenantConfig } from '../../support/fakes';

/** Sign-on and wait-list promotion on in-memory repositories (the SQL and the row lock are the integration tests'). */

interface Row {
  id: number;
  person_id: number;
  event_id: number;
  status: 'signed_on' | 'waitlist' | 'signed_off';
  order_id: number | null;
}

/** person_events and orders in memory, answering as PersonEventsRepository and JoinCheckRepository do. */
class Store {
  rows: Row[] = [];
  orders: { id: number; person_id: number; reference: string }[] = [{ id: 50, person_id: 1, reference: 'PO-1' }];
  private next = 100;

  add(person_id: number, event_id: number, status: Row['status']) {
    const row = { id: this.next++, person_id, event_id, status, order_id: null };
    this.rows.push(row);
    return row;
  }

  readonly personEvents = {
    liveId: async (personId: number, eventId: number) =>
      this.rows.find((r) => r.person_id === personId && r.event_id === eventId && r.status !== 'signed_off')?.id,
    insert: async (row: Omit<Row, 'id'>) => {
      const created = { id: this.next++, ...row };
      this.rows.push(created);
      return created.id;
    },
    signOff: async (id: number) => void (this.rows.find((r) => r.id === id)!.status = 'signed_off'),
    seatsTaken: async (eventId: number) => this.rows.filter((r) => r.event_id === eventId && r.status === 'signed_on').length,
    // in the order they signed on, as created_at, id orders them
    waiting: async (eventId: number, limit: number | null) =>
      this.rows.filter((r) => r.event_id === eventId && r.status === 'waitlist').slice(0, limit ?? undefined),
    promote: async (id: number) => void (this.rows.find((r) => r.id === id)!.status = 'signed_on'),
    orderOf: async (orderId: number, personId: number) => {
      const found = this.orders.find((o) => o.id === orderId && o.person_id === personId);
      return found && { id: found.id, reference: found.reference };
    },
    createOrder: async (reference: string, personId: number) => {
      const id = this.next++;
      this.orders.push({ id, person_id: personId, reference });
      return { id, reference };
    },
  };

  /** The sign-on as SignOnViewsFlow shows it (with the person's user name). */
  readonly views = { byId: async (id: number) => ({ ...this.rows.find((r) => r.id === id)! }) as any };

  readonly joinFacts = {
    missingPrerequisites: async () => [],
    clash: async () => undefined,
    liveStatus: async (personId: number, eventId: number) =>
      this.rows.find((r) => r.person_id === personId && r.event_id === eventId && r.status !== 'signed_off')?.status,
    seatsTaken: (eventId: number) => this.personEvents.seatsTaken(eventId),
    // the repository reads every fact in one statement; in memory they are read as asked
    prefetch: async () => this.joinFacts,
    // facts and the insert they allow, as the statement decides it
    prefetchAndSignOn: async (ev: EventRow, personId: number, _today: string, _clash: boolean, signOn: { allowed: boolean; orderId: number | null }) => {
      // the facts as the statement's snapshot sees them: before its own insert
      const live = await this.joinFacts.liveStatus(personId, ev.id);
      const seats = await this.personEvents.seatsTaken(ev.id);
      const facts = { ...this.joinFacts, liveStatus: async () => live, seatsTaken: async () => seats };
      if (!signOn.allowed || live) return { facts, inserted: null };
      const status = ev.max_participants !== null && seats >= ev.max_participants ? 'waitlist' : 'signed_on';
      const id = await this.personEvents.insert({ person_id: personId, event_id: ev.id, status, order_id: signOn.orderId });
      return { facts, inserted: { id, status, passed: null, order_id: signOn.orderId, created_at: new Date(), signed_off_at: null } };
    },
  };
}

const event = (over: Partial<EventRow> = {}): EventRow => ({
  id: 7,
  parent_id: null,
  competence_id: 3,
  title: 'HSE December',
  description: null,
  location_id: null,
  location_name: null,
  host_organisation_id: null,
  instructor_id: null,
  starts_at: new Date('2030-12-01T08:00:00Z'),
  ends_at: new Date('2030-12-01T16:00:00Z'),
  signon_opens: null,
  signon_closes: null,
  max_participants: 2,
  min_age: null,
  cancelled: false,
  locked: false,
  custom_attributes: {},
  ...over,
});

const person = (id: number, user_name: string) => ({ id, user_name, email: `${user_name}@acme.example`, mobile: null, birthdate: null });
const caller = (over: Partial<Principal> = {}): Principal => ({
  personId: 99,
  userName: 'kari',
  superuser: false,
  organisationId: 1,
  mustChangePassword: null,
  via: 'session',
  ...over,
});

/** The contact people's PersonDirectory gives the flow for the notice. */
const contacts = new Map([1, 2, 3, 4, 5, 6].map((id) => [id, { id, email: `p${id}@acme.example`, mobile: null }]));

function setUp(ev: EventRow, config: Record<string, unknown> = {}) {
  const store = new Store();
  const told: SeatPromotion[] = [];
  /** Notices with a calendar (sign-on confirmations, sign-offs): their METHOD by recipient. */
  const invites: { to: number; method: string | undefined }[] = [];
  const uow = fakeUnitOfWork([
    [TENANT, { hosts: ['acme.test'], slug: 'acme', name: 'Acme', config: tenantConfig({ 'mail.from': 'Acme <training@acme.example>' }) }],
    [
      CalendarRepository,
      {
        courseOf: async (id: number) => (id === ev.id ? ev.id : undefined),
        entries: async () => [
          { id: ev.id, title: ev.title, description: null, starts_at: ev.starts_at, ends_at: ev.ends_at, location: null, sequence: 0, cancelled: ev.cancelled },
        ],
        hasSeat: async (personId: number, eventId: number) =>
          store.rows.some((r) => r.person_id === personId && r.event_id === eventId && r.status === 'signed_on'),
      },
    ],
    [PersonManagers, { contacts: async (ids: number[]) => new Map(ids.map((id) => [id, contacts.get(id)!])) }],
    // the words are the renderer's (tested in test/messaging/notices); here only which notice goes to whom
    [NoticeRenderer, { render: async (type: string) => ({ title: type, text: type, html: null }) }],
    [
      CalendarNotice,
      {
        write: async (items: CalendarNoticeItem[]) =>
          void invites.push(...items.map((i) => ({ to: i.recipient.id, method: /METHOD:(\w+)/.exec(i.calendar)?.[1] }))),
      },
    ],
    [EventsRepository, { findForUpdate: async (id: number) => (id === ev.id ? ev : undefined) }],
    [PersonEventsRepository, store.personEvents],
    [JoinCheckRepository, store.joinFacts],
    [SignOnViewsFlow, store.views],
    [PersonDirectory, { find: async (key: { id: number }) => contacts.get(key.id) }],
    [WaitlistPromotionNotice, { write: async (promotion: SeatPromotion) => void told.push(promotion) }],
  ]);
  const service = new SignOnFlow(uow, { config: tenantConfig(config) }, store.views, { facts: () => store.joinFacts }, clockAt('2030-11-20T12:00:00Z'));
  return { store, service, told, invites };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: ApiError) => ({ errorcode: e.errorcode, message: e.message, extra: e.extra }),
  );

describe('sign-on rules', () => {
  it('takes a free seat, then puts the next person on the wait list with a note', async () => {
    const { store, service, invites } = setUp(event({ max_participants: 1 }));
    expect((await service.signOn(person(1, 'ola'), 7, {})).message).toBe('ola is signed on');
    const full = await service.signOn(person(2, 'nils'), 7, {});
    expect(full.message).toBe('nils is on the wait list; the event is full: placed on the wait list');
    expect(store.rows.map((r) => [r.person_id, r.status])).toEqual([
      [1, 'signed_on'],
      [2, 'waitlist'],
    ]);
    // the seat's confirmation carries the invite; the wait list gets none
    expect(invites).toEqual([{ to: 1, method: 'REQUEST' }]);
  });

  it('refuses a module event and an event check_join refuses, naming the reasons (409)', async () => {
    expect(await refusal(setUp(event({ parent_id: 6 })).service.signOn(person(1, 'ola'), 7, {}))).toMatchObject({
      errorcode: 409,
      message: expect.stringContaining('module of event 6'),
    });
    const cancelled = await refusal(setUp(event({ cancelled: true })).service.signOn(person(1, 'ola'), 7, {}));
    expect(cancelled).toMatchObject({ errorcode: 409, extra: { can_join: false, reason: ['cancelled'] } });
    expect(await refusal(setUp(event()).service.signOn(person(1, 'ola'), 8, {}))).toMatchObject({ errorcode: 404 });
  });

  it('orders: ignored (with a note) unless the order system is on; then an order of the person, or a new one by reference', async () => {
    const off = setUp(event());
    expect((await off.service.signOn(person(1, 'ola'), 7, { order_id: 50 })).message).toContain('order_id/order_reference ignored');
    const on = setUp(event(), { 'order_system.enabled': true });
    expect(await refusal(on.service.signOn(person(2, 'nils'), 7, { order_id: 50 }))).toMatchObject({ errorcode: 420 });
    await on.service.signOn(person(1, 'ola'), 7, { order_id: 50, order_reference: 'X' });
    expect(on.store.rows[0].order_id).toBe(50);
    await on.service.signOn(person(3, 'siri'), 7, { order_reference: 'PO-9' });
    expect(on.store.orders.at(-1)).toMatchObject({ person_id: 3, reference: 'PO-9' });
    expect(on.store.rows[1].order_id).toBe(on.store.orders.at(-1)!.id);
  });
});

describe('wait-list promotion rules', () => {
  it('a sign-off gives the freed seat to the longest-waiting person and writes their notice with their contact', async () => {
    const { store, service, told, invites } = setUp(event({ max_participants: 2 }));
    store.add(1, 7, 'signed_on');
    store.add(2, 7, 'signed_on');
    const first = store.add(3, 7, 'waitlist');
    store.add(4, 7, 'waitlist');
    const r = await service.signOff(caller(), person(1, 'ola'), 7);
    expect(r.message).toBe('ola is signed off; 1 person(s) moved from the wait list to a seat');
    expect(store.rows.find((x) => x.id === first.id)!.status).toBe('signed_on');
    expect(store.rows.filter((x) => x.status === 'waitlist').map((x) => x.person_id)).toEqual([4]);
    expect(told).toEqual([
      {
        recipient: contacts.get(3),
        eventTitle: 'HSE December',
        startsAt: new Date('2030-12-01T08:00:00Z'),
        endsAt: new Date('2030-12-01T16:00:00Z'),
        location: null,
        calendar: expect.stringContaining('METHOD:REQUEST'),
      },
    ]);
    expect(told[0].calendar).toContain('UID:event-7-person-3@acme.test');
    // the seat given up: its invite withdrawn
    expect(invites).toEqual([{ to: 1, method: 'CANCEL' }]);
  });

  it('fills every free seat (a raised limit), all of them without a limit, none on a cancelled event', async () => {
    const raised = setUp(event({ max_participants: 4 }));
    raised.store.add(1, 7, 'signed_on');
    raised.store.add(2, 7, 'signed_on');
    for (const p of [3, 4, 5, 6]) raised.store.add(p, 7, 'waitlist');
    await raised.service.signOff(caller({ superuser: true }), person(1, 'ola'), 7);
    expect(raised.told.map((t) => t.recipient.id)).toEqual([3, 4, 5]);
    const open = setUp(event({ max_participants: null }));
    open.store.add(1, 7, 'signed_on');
    for (const p of [3, 4]) open.store.add(p, 7, 'waitlist');
    await open.service.signOff(caller(), person(1, 'ola'), 7);
    expect(open.told.map((t) => t.recipient.id)).toEqual([3, 4]);
    const cancelled = setUp(event({ cancelled: true }));
    cancelled.store.add(1, 7, 'signed_on');
    cancelled.store.add(3, 7, 'waitlist');
    expect((await cancelled.service.signOff(caller(), person(1, 'ola'), 7)).message).toBe('ola is signed off');
    expect(cancelled.told).toEqual([]);
  });

  it('a locked event refuses everyone but a superuser (409); no live sign-on is a 404', async () => {
    const locked = setUp(event({ locked: true }));
    locked.store.add(1, 7, 'signed_on');
    expect(await refusal(locked.service.signOff(caller(), person(1, 'ola'), 7))).toMatchObject({ errorcode: 409 });
    expect((await locked.service.signOff(caller({ superuser: true }), person(1, 'ola'), 7)).message).toBe('ola is signed off');
    expect(await refusal(setUp(event()).service.signOff(caller(), person(1, 'ola'), 7))).toMatchObject({
      errorcode: 404,
      message: 'sign-on of ola to event 7 not found',
    });
  });
});
