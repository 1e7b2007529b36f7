import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { eventIdsByTitle, idOf, setConfig, tenantDb } from '../events/events-support';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let ev: Record<string, number>;

const HSE_DEC = 'HSE basic course, December';
const LEAD_OVERLAP = 'Leadership 101, December (overlaps HSE basic)';

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  ev = await eventIdsByTitle(t, acme);
});
afterAll(async () => t?.close());

/** A fresh open event of Leadership 101 with the given seats, far from every fixture event. */
async function newEvent(seats: number, title: string, day = '2033-01-10'): Promise<number> {
  const db = tenantDb(t, acme);
  const competence = await idOf(t, acme, 'competences', { title: 'Leadership 101' });
  const [row] = await db
    .table('events')
    .insert({ competence_id: competence, title, starts_at: `${day}T08:00:00Z`, ends_at: `${day}T15:00:00Z`, max_participants: seats })
    .returning('id');
  return row.id;
}

describe('POST /api/personevents/[event_id]', () => {
  it('50 concurrent sign-ons for 2 free seats give exactly 2 signed on and 48 on the wait list', async () => {
    const db = tenantDb(t, acme);
    const org = await idOf(t, acme, 'organisations', { name: 'Operations North' });
    const names = Array.from({ length: 50 }, (_, i) => `racer${i}`);
    await db.table('persons').insert(names.map((n) => ({ user_name: n, email: `${n}@acme.example`, organisation_id: org })));
    const event = await newEvent(2, 'Race day');
    const admin = await asAcme(t, acme.host, 'admin');
    const results = await Promise.all(names.map((n) => admin.post(`/api/personevents/${event}`).send({ user_name: n })));
    expect(results.map((r) => r.status)).toEqual(names.map(() => 200));
    const statuses = results.map((r) => r.body.personevents[0].status);
    expect(statuses.filter((s) => s === 'signed_on')).toHaveLength(2);
    expect(statuses.filter((s) => s === 'waitlist')).toHaveLength(48);
    const counts = await db.table('person_events').where({ event_id: event }).groupBy('status').select('status').count('* as n');
    expect(Object.fromEntries(counts.map((c: any) => [c.status, Number(c.n)]))).toEqual({ signed_on: 2, waitlist: 48 });
  });

  it('a full event puts ola on the wait list; signing off nils gives ola the seat', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const kari = await admin.post(`/api/personevents/${ev[HSE_DEC]}`).send({ user_name: 'kari' });
    expect(kari.body.personevents[0]).toMatchObject({ user_name: 'kari', status: 'signed_on', waitlist: false });
    const ola = await asAcme(t, acme.host, 'ola');
    const waiting = await ola.post(`/api/personevents/${ev[HSE_DEC]}`);
    expect(waiting.status).toBe(200);
    expect(waiting.body.personevents[0]).toMatchObject({ user_name: 'ola', status: 'waitlist', waitlist: true, event_title: HSE_DEC });
    expect(waiting.body.message).toContain('wait list');

    const nils = await asAcme(t, acme.host, 'nils');
    const off = await nils.put(`/api/personevents/${ev[HSE_DEC]}`).send({ action: 'off' });
    expect(off.status).toBe(200);
    expect(off.body.personevents[0]).toMatchObject({ user_name: 'nils', status: 'signed_off' });
    expect(off.body.message).toContain('moved from the wait list');
    const mine = await ola.get(`/api/personevents/${ev[HSE_DEC]}`);
    expect(mine.body.personevents[0]).toMatchObject({ status: 'signed_on' });
    const gone = await nils.get(`/api/personevents/${ev[HSE_DEC]}`);
    expect(gone.body.personevents).toEqual([]);
    const again = await nils.put(`/api/personevents/${ev[HSE_DEC]}`).send({ action: 'off' });
    expect(again.body.errorcode).toBe(404);
  });

  it('refuses a sign-on check_join does not allow, naming the reasons (409)', async () => {
    const siri = await asAcme(t, acme.host, 'siri');
    const res = await siri.post(`/api/personevents/${ev[LEAD_OVERLAP]}`).send({});
    expect(res.status).toBe(200);
    const young = await siri.post(`/api/personevents/${ev['HSE basic course, cancelled run']}`);
    expect(young.status).toBe(409);
    expect(young.body).toMatchObject({ valid: false, errorcode: 409, can_join: false });
    expect(young.body.reason).toContain('cancelled');
    expect(young.body.message).toContain('cancelled');
    const twice = await siri.post(`/api/personevents/${ev[LEAD_OVERLAP]}`);
    expect(twice.body.reason).toEqual(['already_joined']);
  });

  it('with the order system on, order_reference creates an order and order_id must be an existing order of that person', async () => {
    const event = await newEvent(10, 'Order day');
    const admin = await asAcme(t, acme.host, 'admin');
    const created = await admin.post(`/api/personevents/${event}`).send({ user_name: 'nils', order_reference: 'PO-77' });
    expect(created.body.personevents[0]).toMatchObject({ order_reference: 'PO-77' });
    const orderId = created.body.personevents[0].order_id;
    expect(orderId).toBeGreaterThan(0);
    const foreign = await admin.post(`/api/personevents/${event}`).send({ user_name: 'ola', order_id: orderId });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(foreign.body.message).toContain('order_id');
    const second = await newEvent(10, 'Order day, second run', '2033-02-10');
    const attached = await admin.post(`/api/personevents/${second}`).send({ user_name: 'nils', order_id: orderId });
    expect(attached.body.personevents[0]).toMatchObject({ order_id: orderId, order_reference: 'PO-77' });
    const missing = await admin.post(`/api/personevents/${event}`).send({ user_name: 'kari', order_id: 999999 });
    expect(missing.body).toMatchObject({ errorcode: 420 });
    expect(missing.body.message).toContain('order_id');
    const bad = await admin.post(`/api/personevents/${event}`).send({ user_name: 'kari', order_id: 'x' });
    expect(bad.body.errorcode).toBe(420);
  });

  it('with the order system off, order fields are ignored with a message', async () => {
    const event = await newEvent(10, 'No orders');
    await setConfig(t, acme, 'order_system.enabled', false);
    try {
      const admin = await asAcme(t, acme.host, 'admin');
      const res = await admin.post(`/api/personevents/${event}`).send({ user_name: 'kari', order_reference: 'PO-1' });
      expect(res.body.personevents[0]).toMatchObject({ status: 'signed_on', order_id: null });
      expect(res.body.message).toContain('order system is not enabled');
    } finally {
      await setConfig(t, acme, 'order_system.enabled', true);
    }
  });

  it('action=update answers 501 not implemented; a missing action is 419', async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    const upd = await kari.put(`/api/personevents/${ev[HSE_DEC]}`).send({ action: 'update' });
    expect(upd.status).toBe(501);
    expect(upd.body).toMatchObject({ valid: false, errorcode: 501 });
    expect(upd.body.message).toContain('not implemented');
    expect((await kari.put(`/api/personevents/${ev[HSE_DEC]}`).send({})).body.errorcode).toBe(419);
    expect((await kari.put(`/api/personevents/${ev[HSE_DEC]}`).send({ action: 'on' })).body.errorcode).toBe(420);
  });

  it('security: 401 anonymous, 403 for another person, 404 for another tenant', async () => {
    expect((await client(t, acme.host).post(`/api/personevents/${ev[HSE_DEC]}`)).status).toBe(401);
    const per = await asAcme(t, acme.host, 'per');
    expect((await per.post(`/api/personevents/${ev[LEAD_OVERLAP]}`).send({ user_name: 'ola' })).status).toBe(403);
    expect((await per.put(`/api/personevents/${ev[LEAD_OVERLAP]}`).send({ user_name: 'siri', action: 'off' })).status).toBe(403);
    expect((await per.get(`/api/personevents?user_name=ola`)).status).toBe(403);
    expect((await per.get(`/api/personevents/${ev[HSE_DEC]}?user_name=nils`)).status).toBe(403);
    expect((await per.post('/api/personevents/999999')).status).toBe(404);
    // Globex has one event (id 1); acme's overlapping leadership course id does not exist there.
    expect(Object.values(await eventIdsByTitle(t, globex))).not.toContain(ev[LEAD_OVERLAP]);
    const globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    const foreign = await globexAdmin.post(`/api/personevents/${ev[LEAD_OVERLAP]}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ valid: false, errorcode: 404 });
    expect((await globexAdmin.put(`/api/personevents/${ev[LEAD_OVERLAP]}`).send({ action: 'off', user_name: 'siri' })).status).toBe(404);
  });
});

describe('GET /api/personevents', () => {
  it('lists own sign-ons, the wait list separately, and an organisation for its manager', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const own = await ola.get('/api/personevents?mode=all');
    expect(own.body.personevents.map((p: any) => p.event_title)).toContain('HSE basic course, 2024');
    expect(own.body.personevents.every((p: any) => p.user_name === 'ola')).toBe(true);
    const finished = await ola.get('/api/personevents?mode=finished');
    expect(finished.body.personevents.map((p: any) => p.event_title)).toEqual(['HSE basic course, 2024']);
    const kari = await asAcme(t, acme.host, 'kari');
    const ops = await kari.get(`/api/personevents?organisation_id=${await idOf(t, acme, 'organisations', { name: 'Operations' })}&mode=all&limit=100`);
    expect(ops.status).toBe(200);
    expect(new Set(ops.body.personevents.map((p: any) => p.user_name))).toContain('ola');
    const hr = await kari.get(`/api/personevents?organisation_id=${await idOf(t, acme, 'organisations', { name: 'Human Resources' })}`);
    expect(hr.status).toBe(403);
    const waitlist = await asAcme(t, acme.host, 'admin').then((a) => a.get(`/api/personevents?waitlist=1&mode=all&limit=100`));
    expect(waitlist.body.personevents.length).toBe(48);
    expect(waitlist.body.personevents.every((p: any) => p.waitlist === true)).toBe(true);
    const byIds = await ola.get(`/api/personevents?mode=all&event_ids=${ev['HSE basic course, 2024']}`);
    expect(byIds.body.personevents).toHaveLength(1);
    expect((await ola.get('/api/personevents?limit=101')).body.message).toContain('limit 101 is above the maximum 100; served 100');
    expect((await ola.get('/api/personevents?limit=-1')).body.errorcode).toBe(420);
  });
});

describe('wait-list promotion notification', () => {
  it('writes the person who got the seat a notice, in the outbox, with the sign-off', async () => {
    const event = await newEvent(1, 'Notify day', '2034-05-05');
    const admin = await asAcme(t, acme.host, 'admin');
    await admin.post(`/api/personevents/${event}`).send({ user_name: 'kari' });
    const waiting = await admin.post(`/api/personevents/${event}`).send({ user_name: 'nils' });
    expect(waiting.body.personevents[0].status).toBe('waitlist');
    const nils = waiting.body.personevents[0].person_id;
    const notices = () => tenantDb(t, acme).table('messages').where({ recipient_id: nils, title: 'You have a seat: Notify day' }).select('text', 'send_medium');
    expect(await notices()).toEqual([]);
    await admin.put(`/api/personevents/${event}`).send({ user_name: 'kari', action: 'off' });
    expect(await notices()).toEqual([
      { text: expect.stringContaining('"Notify day", starting 5 May 2034 at 08:00 UTC'), send_medium: expect.stringMatching(/^(email|sms)$/) },
    ]);
    const competences = await admin.get('/api/competences/999999/events');
    expect(competences.body.errorcode).toBe(404);
  });
});
