import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { idOf, tenantDb } from '../events/events-support';

type Api = ReturnType<typeof client>;
let t: TestApp;
let acme: DemoTenant;
let admin: Api, kari: Api, nils: Api, globexAdmin: Api;
let a: number, b: number, nilsOrder: number, olaOrder: number;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  const globex = await importDemoTenant(t, 'globex');
  [admin, kari, nils] = await Promise.all([asAcme(t, acme.host, 'admin'), asAcme(t, acme.host, 'kari'), asAcme(t, acme.host, 'nils')]);
  globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));

  const competence = await idOf(t, acme, 'competences', { title: 'Leadership 101' });
  [{ id: a }, { id: b }] = await tenantDb(t, acme)
    .table('events')
    .insert([
      { competence_id: competence, title: 'Order run A', starts_at: '2033-05-05T08:00:00Z', ends_at: '2033-05-05T15:00:00Z', max_participants: 10 },
      { competence_id: competence, title: 'Order run B', starts_at: '2033-06-06T08:00:00Z', ends_at: '2033-06-06T15:00:00Z', max_participants: 10 },
    ])
    .returning('id');
  // nils orders A and puts B on the same order, then signs off B; ola's sign-on to A makes a second order
  const first = await nils.post(`/api/personevents/${a}`).send({ order_reference: 'PO-NILS' });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  nilsOrder = first.body.personevents[0].order_id;
  expect((await nils.post(`/api/personevents/${b}`).send({ order_id: nilsOrder })).status).toBe(200);
  expect((await nils.put(`/api/personevents/${b}`).send({ action: 'off' })).status).toBe(200);
  const second = await admin.post(`/api/personevents/${a}`).send({ user_name: 'ola', order_reference: 'PO-OLA' });
  expect(second.status, JSON.stringify(second.body)).toBe(200);
  olaOrder = second.body.personevents[0].order_id;
});
afterAll(async () => t?.close());

const ids = (body: { orders: { order_id: number }[] }) => body.orders.map((o) => o.order_id);

describe('GET /api/orders', () => {
  it('lists every order, newest first, with the sign-ons each covers (signed-off ones too)', async () => {
    const res = await admin.get('/api/orders');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(ids(res.body)).toEqual([olaOrder, nilsOrder]);
    const nilsView = res.body.orders[1];
    expect(nilsView).toMatchObject({ order_id: nilsOrder, reference: 'PO-NILS', user_name: 'nils' });
    expect(typeof nilsView.created_at).toBe('string');
    expect(nilsView.personevents).toEqual([
      {
        person_event_id: expect.any(Number),
        event_id: a,
        event_title: 'Order run A',
        startdate: '2033-05-05T08:00:00.000Z',
        enddate: '2033-05-05T15:00:00.000Z',
        user_name: 'nils',
        status: 'signed_on',
      },
      {
        person_event_id: expect.any(Number),
        event_id: b,
        event_title: 'Order run B',
        startdate: '2033-06-06T08:00:00.000Z',
        enddate: '2033-06-06T15:00:00.000Z',
        user_name: 'nils',
        status: 'signed_off',
      },
    ]);
    expect(res.body.orders[0].personevents).toMatchObject([{ event_id: a, user_name: 'ola', status: 'signed_on' }]);
  });

  it('filters by user_name and event_id (together too) and pages', async () => {
    expect(ids((await admin.get('/api/orders?user_name=nils')).body)).toEqual([nilsOrder]);
    expect(ids((await admin.get(`/api/orders?event_id=${b}`)).body)).toEqual([nilsOrder]);
    expect(ids((await admin.get(`/api/orders?event_id=${a}`)).body)).toEqual([olaOrder, nilsOrder]);
    expect(ids((await admin.get(`/api/orders?event_id=${b}&user_name=ola`)).body)).toEqual([]);
    expect(ids((await admin.get('/api/orders?user_name=siri')).body)).toEqual([]);
    expect(ids((await admin.get('/api/orders?limit=1&offset=1')).body)).toEqual([nilsOrder]);
    expect((await admin.get('/api/orders?user_name=nobody')).body.errorcode).toBe(404);
    expect((await admin.get('/api/orders?event_id=999999')).body.errorcode).toBe(404);
    expect((await admin.get('/api/orders?limit=101')).body.message).toContain('served 100');
    expect((await admin.get('/api/orders?limit=0')).body).toMatchObject({ errorcode: 420, parameter: 'limit' });
  });

  it("is for superusers only (403 for a manager and for the order's own person)", async () => {
    expect((await kari.get('/api/orders')).body).toMatchObject({ valid: false, errorcode: 403 });
    expect((await nils.get('/api/orders?user_name=nils')).body.errorcode).toBe(403);
    expect((await client(t, acme.host).get('/api/orders')).status).toBe(401);
    expect((await globexAdmin.get('/api/orders')).body.orders).toEqual([]);
  });
});

describe('GET /api/orders/[order_id]', () => {
  it("answers one order with its sign-ons; unknown and another tenant's order 404; others 403", async () => {
    const res = await admin.get(`/api/orders/${nilsOrder}`);
    expect(res.status).toBe(200);
    expect(res.body.orders).toHaveLength(1);
    expect(res.body.orders[0]).toMatchObject({ order_id: nilsOrder, reference: 'PO-NILS', user_name: 'nils' });
    expect(res.body.orders[0].personevents.map((s: any) => [s.event_id, s.status])).toEqual([
      [a, 'signed_on'],
      [b, 'signed_off'],
    ]);
    expect((await admin.get('/api/orders/999999')).body.errorcode).toBe(404);
    expect((await globexAdmin.get(`/api/orders/${nilsOrder}`)).body.errorcode).toBe(404);
    expect((await kari.get(`/api/orders/${nilsOrder}`)).body.errorcode).toBe(403);
    expect((await nils.get(`/api/orders/${nilsOrder}`)).body.errorcode).toBe(403);
  });
});
