import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { idOf, tenantDb } from '../events/events-support';
import { KNEX, TENANT_POOLS } from '../../../src/platform/tokens';

/**
 * Never oversold, with the event lock really contended: one group of 8 connections and no share
 * limit, so up to 8 sign-on transactions of the tenant run at once (with the defaults a tenant
 * alone gets 2). Without the row lock, or with the seat count read before it, these fail.
 */
let t: TestApp;
let acme: DemoTenant;

beforeAll(async () => {
  t = await createTestApp({ DATABASE_POOL_MAX: '8', DATABASE_POOL_GROUPS: '1', DATABASE_TENANT_SHARE_PERCENT: '100' });
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => t?.close());

async function newEvents(count: number, seats: number, title: string): Promise<number[]> {
  const competence = await idOf(t, acme, 'competences', { title: 'Leadership 101' });
  // one day each, far from every fixture event and from each other (no overlap clash)
  const rows = Array.from({ length: count }, (_, i) => {
    const day = new Date(Date.UTC(2034, 0, 2 + i * 2)).toISOString().slice(0, 10);
    return { competence_id: competence, title: `${title} ${i}`, starts_at: `${day}T08:00:00Z`, ends_at: `${day}T15:00:00Z`, max_participants: seats };
  });
  return (await tenantDb(t, acme).table('events').insert(rows).returning('id')).map((r: { id: number }) => r.id);
}

async function persons(prefix: string, n: number): Promise<string[]> {
  const org = await idOf(t, acme, 'organisations', { name: 'Operations North' });
  const names = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  await tenantDb(t, acme)
    .table('persons')
    .insert(names.map((user_name) => ({ user_name, email: `${user_name}@acme.example`, organisation_id: org })));
  return names;
}

async function seats(eventIds: number[]): Promise<Map<number, { signed_on: number; waitlist: number }>> {
  const rows = await tenantDb(t, acme)
    .table('person_events')
    .whereIn('event_id', eventIds)
    .whereNot('status', 'signed_off')
    .groupBy('event_id', 'status')
    .select('event_id', 'status')
    .count('* as n');
  const out = new Map(eventIds.map((id) => [id, { signed_on: 0, waitlist: 0 }]));
  for (const r of rows as { event_id: number; status: 'signed_on' | 'waitlist'; n: string }[]) out.get(r.event_id)![r.status] = Number(r.n);
  return out;
}

describe('sign-on races on several connections at once', () => {
  it('the tenant really runs several sign-on transactions at once here', () => {
    const group = t.container.resolve(TENANT_POOLS).groups[0];
    expect((group.client as { config: { pool: { max: number } } }).config.pool.max).toBe(8);
  });

  it('8 events of 2 seats, 30 persons each signing on to all 8 at once, each insert slowed down: exactly 2 seats taken per event, the rest waiting', async () => {
    const events = await newEvents(8, 2, 'Race');
    const names = await persons('runner', 30);
    const admin = await asAcme(t, acme.host, 'admin');
    // event by event: the sign-ons running at once are mostly for the same event
    const calls = events.flatMap((e) => names.map((n) => ({ n, e })));
    // Each sign-on's insert sleeps before its commit, so sign-ons that did not queue on the event
    // would all count the seats before any of them commits (and oversell every event).
    const knex = t.container.resolve(KNEX);
    await knex.raw(`create function ??.slow_sign_on() returns trigger language plpgsql as $$ begin perform pg_sleep(0.02); return null; end $$`, [acme.schema]);
    await knex.raw('create trigger slow_sign_on after insert on ??.person_events for each row execute function ??.slow_sign_on()', [acme.schema, acme.schema]);
    const answers = await Promise.all(calls.map(({ n, e }) => admin.post(`/api/personevents/${e}`).send({ user_name: n }))).finally(() =>
      knex.raw('drop function ??.slow_sign_on() cascade', [acme.schema]),
    );
    expect(answers.map((r) => r.status)).toEqual(calls.map(() => 200));
    for (const e of events) {
      const mine = answers.filter((_, i) => calls[i].e === e).map((r) => r.body.personevents[0].status);
      expect(mine.filter((s) => s === 'signed_on')).toHaveLength(2);
    }
    expect([...(await seats(events)).values()]).toEqual(events.map(() => ({ signed_on: 2, waitlist: 28 })));
  });

  it('sign-offs and sign-ons racing on one event: never more than its seats, and a freed seat is always filled from the wait list', async () => {
    const [event] = await newEvents(1, 4, 'Churn');
    const names = await persons('churner', 30);
    const admin = await asAcme(t, acme.host, 'admin');
    // the first 10 one by one: 4 seats, 6 waiting
    for (const n of names.slice(0, 10)) expect((await admin.post(`/api/personevents/${event}`).send({ user_name: n })).status).toBe(200);
    // then the seated and some waiting sign off while 20 more sign on, all at once
    const offs = names.slice(0, 6).map((n) => admin.put(`/api/personevents/${event}`).send({ user_name: n, action: 'off' }));
    const ons = names.slice(10).map((n) => admin.post(`/api/personevents/${event}`).send({ user_name: n }));
    const answers = await Promise.all([...offs, ...ons]);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    // 24 live sign-ons for 4 seats: the seats are full, never over
    expect((await seats([event])).get(event)).toEqual({ signed_on: 4, waitlist: 20 });
  });
});
