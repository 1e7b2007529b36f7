import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../support/test-app';
import { asAcme } from '../support/login';
import { KNEX } from '../../src/platform/tokens';
import { CLOCK } from '../../src/platform/time/tenant-clock';
import { cachesSettled } from '../support/cache-settle';

/*
 * GET /api/persons (simple view), /api/personcompetences and /api/events (upcoming, first page)
 * come from TenantDataCache (src/platform/cache). Each test proves an answer is cached (a write that
 * announces nothing is not seen) and never stale: announced writes are seen, and answers that change
 * with time alone (the tenant's day, an event starting) are made again when that time comes.
 */
let now = new Date('2026-05-07T12:00:00Z');
let t: TestApp;
let acme: DemoTenant;
let other: DemoTenant;
let knex: Knex;

beforeAll(async () => {
  t = await createTestApp();
  t.container.register(CLOCK, { useValue: { now: () => now } });
  [acme, other] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'acme')]);
  knex = t.container.resolve(KNEX);
});
afterAll(async () => t?.close());

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** A write that fires no trigger: what no cache can know about. */
async function silently(fn: (trx: Knex.Transaction) => Promise<unknown>): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw('set local session_replication_role = replica');
    await fn(trx);
  });
}

describe('GET /api/persons (simple view)', () => {
  it('is cached per caller and input; announced writes are seen; event_id lists are read each time', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const names = async (url: string) => (await admin.get(url)).body.persons.map((p: { lastname: string }) => p.lastname);
    await cachesSettled(t, knex, acme.schema);
    const before = await names('/api/persons?limit=100');
    await silently((trx) => trx.withSchema(acme.schema).table('persons').where({ user_name: 'ola' }).update({ lastname: 'Silent' }));
    expect(await names('/api/persons?limit=100')).toEqual(before);
    // another input is another entry: read now, with the silent change
    expect(await names('/api/persons?limit=99')).toContain('Silent');
    await knex.withSchema(acme.schema).table('locations').where({ id: -1 }).update({ name: 'x' }); // announced, changes nothing
    await eventually('the silent change shows', async () => (await names('/api/persons?limit=100')).includes('Silent'));

    const event = await knex.withSchema(acme.schema).table('events').first('id');
    const ola = await knex.withSchema(acme.schema).table('persons').where({ user_name: 'ola' }).first('id');
    const signedOn = async () => (await admin.get(`/api/persons?event_id=${event.id}`)).body.persons.map((p: { user_name: string }) => p.user_name);
    const had = await signedOn();
    await silently((trx) => trx.withSchema(acme.schema).table('person_events').where({ event_id: event.id, person_id: ola.id }).delete());
    await silently((trx) => trx.withSchema(acme.schema).table('person_events').insert({ event_id: event.id, person_id: ola.id, status: 'signed_on' }));
    expect((await signedOn()).includes('ola')).toBe(true);
    expect(had).toBeDefined();
  });

  it('never crosses tenants or callers', async () => {
    await silently((trx) => trx.withSchema(other.schema).table('persons').where({ user_name: 'siri' }).update({ lastname: 'OtherTenant' }));
    const acmeAdmin = await asAcme(t, acme.host, 'admin');
    const otherAdmin = await asAcme(t, other.host, 'admin');
    const kari = await asAcme(t, acme.host, 'kari');
    const url = '/api/persons?limit=100';
    const acmeNames = (await acmeAdmin.get(url)).body.persons.map((p: { lastname: string }) => p.lastname);
    const otherNames = (await otherAdmin.get(url)).body.persons.map((p: { lastname: string }) => p.lastname);
    expect(acmeNames).not.toContain('OtherTenant');
    expect(otherNames).toContain('OtherTenant');
    // kari manages Operations only: her answer to the same input is hers
    const kariNames = (await kari.get(url)).body.persons.map((p: { lastname: string }) => p.lastname);
    expect(kariNames.length).toBeLessThan(acmeNames.length);
  });
});

describe('GET /api/personcompetences', () => {
  it("is cached within the tenant's day and made again when the day changes, without any write", async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const missing = async () => (await ola.get('/api/personcompetences?state=missing')).body.personcompetences.map((c: { title: string }) => c.title);
    await cachesSettled(t, knex, acme.schema);
    // HSE basic is valid until 2026-05-07: held today, expired tomorrow
    expect(await missing()).not.toContain('HSE basic course');
    now = new Date('2026-05-07T23:59:59Z');
    expect(await missing()).not.toContain('HSE basic course');
    now = new Date('2026-05-08T00:00:01Z');
    expect(await missing()).toContain('HSE basic course');
    now = new Date('2026-05-07T12:00:00Z');
  });

  it('an announced registration is seen; a silent one is not', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const passed = async () => (await ola.get('/api/personcompetences')).body.personcompetences.map((c: { title: string }) => c.title);
    await cachesSettled(t, knex, acme.schema);
    const before = await passed();
    const person = await knex.withSchema(acme.schema).table('persons').where({ user_name: 'ola' }).first('id');
    const formal = await knex
      .withSchema(acme.schema)
      .table('competences')
      .where({ active: true })
      .whereIn('type', ['course', 'formal', 'skill', 'ecourse'])
      .whereNull('parent_id')
      .whereNotIn('title', before)
      .first('id', 'title');
    await silently((trx) => trx.withSchema(acme.schema).table('person_competences').insert({ person_id: person.id, competence_id: formal.id, passed: 100 }));
    expect(await passed()).toEqual(before);
    await knex.withSchema(acme.schema).table('requirements').where({ role_id: -1 }).delete(); // announced, changes nothing
    await eventually('the registration shows', async () => (await passed()).includes(formal.title));
  });
});

describe('GET /api/events (upcoming)', () => {
  it('is cached until the first listed event starts; then made again without any write', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const first = await knex
      .withSchema(acme.schema)
      .table('events')
      .whereNull('parent_id')
      .where('cancelled', false)
      .where('starts_at', '>=', new Date('2000-01-01'))
      .orderBy('starts_at')
      .first('id', 'starts_at');
    now = new Date(first.starts_at.getTime() - 60_000);
    await cachesSettled(t, knex, acme.schema);
    try {
      const ids = async () => (await admin.get('/api/events')).body.events.map((e: { event_id: number }) => e.event_id);
      expect((await ids())[0]).toBe(first.id);
      await silently((trx) => trx.withSchema(acme.schema).table('events').where({ id: first.id }).update({ title: 'Silently renamed' }));
      expect((await admin.get('/api/events')).body.events[0].title).not.toBe('Silently renamed');
      now = new Date(first.starts_at.getTime() + 1000);
      expect(await ids()).not.toContain(first.id);
      // finished events are not cached at all
      expect((await admin.get('/api/events?mode=all')).body.events.some((e: { title: string }) => e.title === 'Silently renamed')).toBe(true);
    } finally {
      now = new Date('2026-05-07T12:00:00Z');
    }
  });
});

describe('the person a GET acts on', () => {
  it('is looked up once while nothing changes; writes look it up each time; an announced rename is seen', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    await cachesSettled(t, knex, acme.schema);
    expect((await admin.get('/api/persons/ola')).status).toBe(200);
    await silently((trx) => trx.withSchema(acme.schema).table('persons').where({ user_name: 'ola' }).update({ user_name: 'ola_renamed' }));
    // the GET's access check still finds ola under the old name: the lookup was cached
    expect((await admin.get('/api/persons/ola')).status).toBe(200);
    // a write acts on the person: it reads the database and does not find ola
    const put = await admin.put('/api/persons/ola').send({ firstname: 'Ola' });
    expect(put.status).toBe(404);
    expect(put.body.message).toContain('person "ola"');
    await knex.withSchema(acme.schema).table('locations').where({ id: -1 }).update({ name: 'x' }); // announced, changes nothing
    await eventually('the rename shows', async () => (await admin.get('/api/persons/ola')).status === 404);
    expect((await admin.get('/api/persons/ola_renamed')).status).toBe(200);
    await knex.withSchema(acme.schema).table('persons').where({ user_name: 'ola_renamed' }).update({ user_name: 'ola' });
  });
});
