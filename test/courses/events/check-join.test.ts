import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { eventIdsByTitle, idOf, setConfig, tenantDb } from './events-support';
import { JoinCheckRepository } from '../../../src/courses/events/join-check.repository';
import { EventsRepository } from '../../../src/courses/events/events.repository';
import { missingPrerequisites } from '../../../src/flows/sign-on/missing-prerequisites';

let t: TestApp;
let acme: DemoTenant;
let ev: Record<string, number>;

const HSE_DEC = 'HSE basic course, December';
const LEAD_SPRING = 'Leadership 101, spring';
const LEAD_OVERLAP = 'Leadership 101, December (overlaps HSE basic)';

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  ev = await eventIdsByTitle(t, acme);
});
afterAll(async () => t?.close());

async function check(user: 'siri' | 'nils' | 'ola' | 'per' | 'admin', title: string) {
  const res = await (await asAcme(t, acme.host, user)).get(`/api/events/${ev[title]}/check_join`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('GET /api/events/[id]/check_join', () => {
  it('siri (born 2010) is too young for the December HSE course', async () => {
    const body = await check('siri', HSE_DEC);
    expect(body.can_join).toBe(false);
    expect(body.reason).toEqual(['age']);
    expect(body.age).toContain('at least 18');
    expect(body.places).toBe(1);
  });

  it('nils is already signed on to the December HSE course', async () => {
    const body = await check('nils', HSE_DEC);
    expect(body.can_join).toBe(false);
    expect(body.reason).toContain('already_joined');
    expect(body.already_joined).toMatch(/already signed on/);
  });

  it('per has no e-mail, and acme requires one', async () => {
    const body = await check('per', LEAD_SPRING);
    expect(body.reason).toContain('required_fields');
    expect(body.required_fields).toContain('e-mail');
    expect(body.can_join).toBe(false);
  });

  it('ola may join leadership spring only once he holds a valid HSE basic', async () => {
    const before = await check('ola', LEAD_SPRING);
    expect(before).toMatchObject({ can_join: false, reason: ['prerequisites'], places: 8 });
    expect(before.prerequisites).toContain('HSE basic course');
    const db = tenantDb(t, acme);
    const ola = await idOf(t, acme, 'persons', { user_name: 'ola' });
    const hse = await idOf(t, acme, 'competences', { title: 'HSE basic course' });
    await db.table('person_competences').where({ person_id: ola, competence_id: hse }).whereNull('superseded_at').update({ superseded_at: db.fn.now() });
    await db.table('person_competences').insert({ person_id: ola, competence_id: hse, date: '2026-06-01', valid_until: '2028-06-01', passed: 100 });
    const after = await check('ola', LEAD_SPRING);
    expect(after).toEqual({ valid: true, message: 'can join', can_join: true, places: 8, reason: [] });
  });

  it('nils gets conflicting_course for the overlapping leadership course until block_overlapping is off', async () => {
    const on = await check('nils', LEAD_OVERLAP);
    expect(on.reason).toEqual(['conflicting_course']);
    expect(on.conflicting_course).toContain(HSE_DEC);
    await setConfig(t, acme, 'signon.block_overlapping', false);
    try {
      const off = await check('nils', LEAD_OVERLAP);
      expect(off.reason).toEqual([]);
      expect(off.can_join).toBe(true);
    } finally {
      await setConfig(t, acme, 'signon.block_overlapping', true);
    }
  });

  it('cancelled and locked events give their reasons', async () => {
    const c = await check('nils', 'HSE basic course, cancelled run');
    expect(c.reason).toContain('cancelled');
    expect(c.cancelled).toContain('cancelled');
    const l = await check('nils', 'HSE basic course, locked run');
    expect(l.reason).toContain('locked');
    expect(l.locked).toContain('locked');
    expect(l.can_join).toBe(false);
  });

  it('a finished event is past its sign-on period', async () => {
    const body = await check('nils', 'HSE basic course, 2024');
    expect(body.reason).toContain('signon_period');
    expect(body.can_join).toBe(false);
  });

  it('a full event keeps can_join true with event_full', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const signOn = await admin.post(`/api/personevents/${ev[HSE_DEC]}`).send({ user_name: 'kari' });
    expect(signOn.body.personevents[0].status).toBe('signed_on');
    const body = await check('admin', HSE_DEC);
    expect(body).toMatchObject({ can_join: true, places: 0, reason: ['event_full'] });
    expect(body.event_full).toContain('wait list');
  });

  it('security: anonymous 401, another person 403, unknown or other tenant event 404', async () => {
    expect((await client(t, acme.host).get(`/api/events/${ev[HSE_DEC]}/check_join`)).status).toBe(401);
    const ola = await asAcme(t, acme.host, 'ola');
    const other = await ola.get(`/api/events/${ev[HSE_DEC]}/check_join?user_name=siri`);
    expect(other.status).toBe(403);
    expect(other.body.errorcode).toBe(403);
    const kari = await asAcme(t, acme.host, 'kari');
    expect((await kari.get(`/api/events/${ev[HSE_DEC]}/check_join?user_name=siri`)).status).toBe(200);
    expect((await ola.get('/api/events/999999/check_join')).body.errorcode).toBe(404);
    expect((await ola.get('/api/events/abc/check_join')).body.errorcode).toBe(420);
  });
});

describe('JoinCheckRepository.prefetch (sign-on reads every fact in one statement)', () => {
  it('answers exactly what the separate queries answer, for every person and event of the tenant', async () => {
    const db = tenantDb(t, acme);
    const repo = new JoinCheckRepository(db);
    const events = new EventsRepository(db);
    const persons: number[] = await db.table('persons').orderBy('id').pluck('id');
    const today = '2026-11-23';
    let clashes = 0;
    let missing = 0;
    for (const eventId of Object.values(ev)) {
      const event = (await events.findForUpdate(eventId))!;
      for (const personId of persons) {
        for (const withClash of [true, false]) {
          const facts = await repo.prefetch(event, personId, today, withClash, missingPrerequisites);
          const separately = repo.facts(missingPrerequisites);
          const one = {
            missing: await facts.missingPrerequisites(event.id, personId, today),
            clash: withClash ? await facts.clash(personId, event) : undefined,
            live: await facts.liveStatus(personId, event.id),
            seats: await facts.seatsTaken(event.id),
          };
          const separate = {
            missing: await separately.missingPrerequisites(event.id, personId, today),
            clash: withClash ? await separately.clash(personId, event) : undefined,
            live: await separately.liveStatus(personId, event.id),
            seats: await separately.seatsTaken(event.id),
          };
          expect({ eventId, personId, ...one }).toEqual({ eventId, personId, ...separate });
          if (one.clash) clashes++;
          if (one.missing.length) missing++;
        }
      }
    }
    // the demo data has both, so the comparison covered non-empty answers
    expect(clashes).toBeGreaterThan(0);
    expect(missing).toBeGreaterThan(0);
  });
});
