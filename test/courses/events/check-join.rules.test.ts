import { describe, expect, it } from 'vitest';
import { checkJoin, type JoinFacts, type JoinPerson } from '../../../src/courses/events/join-check';
import type { EventRow } from '../../../src/courses/events/events.repository';
import { clockAt, tenantConfig } from '../../support/fakes';

/** check_join on in-memory facts: every criterion, its text, and which ones still let the person join. */

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
  max_participants: null,
  min_age: null,
  cancelled: false,
  locked: false,
  custom_attributes: {},
  ...over,
});

const ola: JoinPerson = { id: 1, user_name: 'ola', email: 'ola@acme.example', mobile: '+4790000000', birthdate: '1990-04-01' };

/** What the tables would answer; every field defaults to "nothing in the way". */
function facts(
  over: Partial<{ missing: { id: number; title: string }[]; clash: { title: string; starts_at: Date }; live: string; taken: number }> = {},
): JoinFacts & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async missingPrerequisites(eventId, personId, today) {
      asked.push(`prerequisites ${eventId} ${personId} ${today}`);
      return over.missing ?? [];
    },
    async clash() {
      asked.push('clash');
      return over.clash;
    },
    async liveStatus() {
      return over.live;
    },
    async seatsTaken() {
      return over.taken ?? 0;
    },
  };
}

const NOW = '2030-11-20T12:00:00Z';

describe('check_join rules', () => {
  it('an open event with nothing in the way: can join, no reasons, no seat limit (places null)', async () => {
    const r = await checkJoin(facts(), event(), ola, tenantConfig(), clockAt(NOW));
    expect(r).toEqual({ can_join: true, places: null, reason: [], texts: {} });
  });

  it('cancelled and locked events refuse, each with its text', async () => {
    const r = await checkJoin(facts(), event({ cancelled: true, locked: true }), ola, tenantConfig(), clockAt(NOW));
    expect(r.can_join).toBe(false);
    expect(r.reason).toEqual(['cancelled', 'locked']);
    expect(r.texts.cancelled).toBe('The event "HSE December" is cancelled.');
  });

  it('the sign-on period: before it opens, after it closes, and once the event started', async () => {
    const opens = new Date('2030-11-25T00:00:00Z');
    expect((await checkJoin(facts(), event({ signon_opens: opens }), ola, tenantConfig(), clockAt(NOW))).texts.signon_period).toBe(
      `Sign-on opens ${opens.toISOString()}.`,
    );
    const closes = new Date('2030-11-10T00:00:00Z');
    expect((await checkJoin(facts(), event({ signon_closes: closes }), ola, tenantConfig(), clockAt(NOW))).texts.signon_period).toBe(
      `Sign-on closed ${closes.toISOString()}.`,
    );
    const started = await checkJoin(facts(), event(), ola, tenantConfig(), clockAt('2030-12-01T09:00:00Z'));
    expect(started.reason).toEqual(['signon_period']);
    expect(started.can_join).toBe(false);
  });

  it('missing prerequisites are named in title order as the facts give them, checked on the tenant day', async () => {
    const f = facts({
      missing: [
        { id: 4, title: 'First aid' },
        { id: 5, title: 'Ladder' },
      ],
    });
    const r = await checkJoin(f, event(), ola, tenantConfig(), clockAt(NOW));
    expect(r.texts.prerequisites).toBe('Requires a valid "First aid", "Ladder" first.');
    expect(f.asked).toContain('prerequisites 7 1 2030-11-20');
  });

  it('age counts on the day of the check; without a birthdate the limit does not block', async () => {
    const teen = { ...ola, birthdate: '2013-11-21' };
    expect((await checkJoin(facts(), event({ min_age: 17 }), teen, tenantConfig(), clockAt(NOW))).texts.age).toBe(
      'The event requires an age of at least 17; ola is 16.',
    );
    expect((await checkJoin(facts(), event({ min_age: 17 }), { ...teen, birthdate: '2013-11-20' }, tenantConfig(), clockAt(NOW))).reason).toEqual([]);
    expect((await checkJoin(facts(), event({ min_age: 99 }), { ...ola, birthdate: null }, tenantConfig(), clockAt(NOW))).reason).toEqual([]);
  });

  it('required fields follow the tenant config items; blank values count as missing', async () => {
    const config = tenantConfig({ 'signon.require_email': true, 'signon.require_mobile': true });
    const r = await checkJoin(facts(), event(), { ...ola, email: '  ', mobile: null }, config, clockAt(NOW));
    expect(r.texts.required_fields).toBe('Sign-on requires e-mail address and mobile number on the person; please add it to the profile.');
    expect((await checkJoin(facts(), event(), { ...ola, email: null }, tenantConfig(), clockAt(NOW))).reason).toEqual([]);
  });

  it('overlaps are looked for only when signon.block_overlapping is on', async () => {
    const clash = { title: 'Forklift', starts_at: new Date('2030-12-01T10:00:00Z') };
    const off = facts({ clash });
    expect((await checkJoin(off, event(), ola, tenantConfig(), clockAt(NOW))).reason).toEqual([]);
    expect(off.asked).not.toContain('clash');
    const on = await checkJoin(facts({ clash }), event(), ola, tenantConfig({ 'signon.block_overlapping': true }), clockAt(NOW));
    expect(on.texts.conflicting_course).toBe('Overlaps "Forklift" (2030-12-01T10:00:00.000Z), which ola is already signed on to.');
  });

  it('already joined says seat or wait list', async () => {
    expect((await checkJoin(facts({ live: 'signed_on' }), event(), ola, tenantConfig(), clockAt(NOW))).texts.already_joined).toBe('ola is already signed on.');
    expect((await checkJoin(facts({ live: 'waitlist' }), event(), ola, tenantConfig(), clockAt(NOW))).texts.already_joined).toBe(
      'ola is already on the wait list.',
    );
  });

  it('a full event keeps can_join true (the wait list) and reports 0 places; free seats are counted', async () => {
    const full = await checkJoin(facts({ taken: 3 }), event({ max_participants: 3 }), ola, tenantConfig(), clockAt(NOW));
    expect(full).toMatchObject({ can_join: true, places: 0, reason: ['event_full'] });
    expect((await checkJoin(facts({ taken: 1 }), event({ max_participants: 3 }), ola, tenantConfig(), clockAt(NOW))).places).toBe(2);
    // more signed on than seats (a lowered limit) is still 0, never negative
    expect((await checkJoin(facts({ taken: 5 }), event({ max_participants: 3 }), ola, tenantConfig(), clockAt(NOW))).places).toBe(0);
  });

  it('reasons come in the fixed order of the spec, and any other reason next to event_full refuses', async () => {
    const r = await checkJoin(
      facts({ live: 'waitlist', taken: 1 }),
      event({ locked: true, max_participants: 1, cancelled: true }),
      ola,
      tenantConfig(),
      clockAt(NOW),
    );
    expect(r.reason).toEqual(['cancelled', 'locked', 'already_joined', 'event_full']);
    expect(r.can_join).toBe(false);
  });
});
