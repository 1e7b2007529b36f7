import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { acmeWithKarisManagers, type AcmeClient } from '../../people/persons/demo-refs';
import { eventIdsByTitle, idOf, tenantDb } from '../events/events-support';

let t: TestApp;
let acme: DemoTenant;
let ev: Record<string, number>;
let admin: AcmeClient, kari: AcmeClient, nils: AcmeClient, boss: AcmeClient;

const LEAD_SPRING = 'Leadership 101, spring';

beforeAll(async () => {
  t = await createTestApp();
  ({ acme, admin, kari, boss } = await acmeWithKarisManagers(t));
  ev = await eventIdsByTitle(t, acme);
  nils = await asAcme(t, acme.host, 'nils');
});
afterAll(async () => t?.close());

describe('prerequisites count only passed registrations', () => {
  it('nils with a failed HSE basic (passed 0) cannot join leadership spring: check_join and sign-on refuse; once passed he can', async () => {
    const hse = await idOf(t, acme, 'competences', { title: 'HSE basic course' });
    const failed = await admin.put(`/api/personcompetences/${hse}`).send({ user_name: 'nils', passed: 0 });
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    const check = await nils.get(`/api/events/${ev[LEAD_SPRING]}/check_join`);
    expect(check.body).toMatchObject({ can_join: false, reason: ['prerequisites'] });
    expect(check.body.prerequisites).toContain('HSE basic course');
    const refused = await nils.post(`/api/personevents/${ev[LEAD_SPRING]}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ valid: false, errorcode: 409, can_join: false, reason: ['prerequisites'] });

    expect((await admin.put(`/api/personcompetences/${hse}`).send({ user_name: 'nils', passed: 80 })).status).toBe(200);
    expect((await nils.get(`/api/events/${ev[LEAD_SPRING]}/check_join`)).body).toMatchObject({ can_join: true, reason: [] });
    expect((await nils.post(`/api/personevents/${ev[LEAD_SPRING]}`)).status).toBe(200);
  });
});

describe('sign-on and sign-off of a person who manages the caller', () => {
  it('kari cannot sign boss on (403) or off (403); boss signs himself on (200) and kari on (200)', async () => {
    const db = tenantDb(t, acme);
    const competence = await idOf(t, acme, 'competences', { title: 'Leadership 101' });
    const [{ id: event }] = await db
      .table('events')
      .insert({ competence_id: competence, title: 'Leaders day', starts_at: '2033-04-04T08:00:00Z', ends_at: '2033-04-04T15:00:00Z', max_participants: 10 })
      .returning('id');
    const byKari = await kari.post(`/api/personevents/${event}`).send({ user_name: 'boss' });
    expect(byKari.status).toBe(403);
    expect(byKari.body).toMatchObject({ valid: false, errorcode: 403 });
    expect((await boss.post(`/api/personevents/${event}`)).status).toBe(200);
    expect((await kari.put(`/api/personevents/${event}`).send({ user_name: 'boss', action: 'off' })).status).toBe(403);
    expect((await boss.post(`/api/personevents/${event}`).send({ user_name: 'kari' })).status).toBe(200);
    // reading stays "superuser, manager, self"
    expect((await kari.get(`/api/personevents/${event}?user_name=boss`)).status).toBe(200);
  });
});

describe('order_id must be an order of the person signed on', () => {
  it("kari cannot attach nils's order to ola's sign-on (420 naming order_id); nils's own sign-on takes it (200)", async () => {
    const competence = await idOf(t, acme, 'competences', { title: 'Leadership 101' });
    const db = tenantDb(t, acme);
    const [a, b] = await db
      .table('events')
      .insert([
        { competence_id: competence, title: 'Order run A', starts_at: '2033-05-05T08:00:00Z', ends_at: '2033-05-05T15:00:00Z', max_participants: 10 },
        { competence_id: competence, title: 'Order run B', starts_at: '2033-06-06T08:00:00Z', ends_at: '2033-06-06T15:00:00Z', max_participants: 10 },
      ])
      .returning('id');
    const created = await nils.post(`/api/personevents/${a.id}`).send({ order_reference: 'PO-NILS' });
    const orderId = created.body.personevents[0].order_id;
    const foreign = await kari.post(`/api/personevents/${b.id}`).send({ user_name: 'ola', order_id: orderId });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(foreign.body.message).toContain('order_id');
    const own = await kari.post(`/api/personevents/${b.id}`).send({ user_name: 'nils', order_id: orderId });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.personevents[0]).toMatchObject({ order_id: orderId, order_reference: 'PO-NILS' });
  });
});
