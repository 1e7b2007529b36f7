import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { eventIdsByTitle, idOf } from './events-support';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let ev: Record<string, number>;
let admin: Awaited<ReturnType<typeof asAcme>>;

const DEC = 'HSE basic course, December';
const OVERLAP = 'Leadership 101, December (overlaps HSE basic)';
const SPRING = 'Leadership 101, spring';
const LOCKED = 'HSE basic course, locked run';
const CANCELLED = 'HSE basic course, cancelled run';
const OLD = 'HSE basic course, 2024';

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  ev = await eventIdsByTitle(t, acme);
  admin = await asAcme(t, acme.host, 'admin');
});
afterAll(async () => t?.close());

const titles = async (url: string) => {
  const res = await admin.get(url);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.events.map((e: any) => e.title);
};

describe('GET /api/events', () => {
  it('lists future, not cancelled course events by start, with module events only as children', async () => {
    const res = await admin.get('/api/events');
    expect(res.body.events.map((e: any) => e.title)).toEqual([LOCKED, DEC, OVERLAP, SPRING]);
    const dec = res.body.events[1];
    expect(dec).toMatchObject({
      event_id: ev[DEC],
      competence_title: 'HSE basic course',
      location_name: 'Oslo HQ, room Fjord',
      max_participants: 2,
      participants: 1,
      places: 1,
      startdate: '2031-12-10T08:00:00.000Z',
    });
    expect(dec.children.map((c: any) => c.title)).toEqual(['Module 1, risk', 'Module 2, first aid']);
    expect(dec.description).toBeUndefined();
  });

  it('honours mode, cancelled, dates, sort_direction and location_id with dates', async () => {
    expect(await titles('/api/events?mode=finished')).toEqual([OLD]);
    expect(await titles('/api/events?cancelled=1')).toEqual([LOCKED, CANCELLED, DEC, OVERLAP, SPRING]);
    expect(await titles('/api/events?mode=all&cancelled=1&sort_direction=desc')).toEqual([SPRING, OVERLAP, DEC, CANCELLED, LOCKED, OLD]);
    expect(await titles('/api/events?startdate=2031-12-01&enddate=2031-12-31')).toEqual([DEC, OVERLAP]);
    const bergen = await idOf(t, acme, 'locations', { name: 'Bergen yard' });
    expect(await titles(`/api/events?startdate=2031-12-01&enddate=2031-12-31&location_id=${bergen}`)).toEqual([]);
    const ignored = await admin.get(`/api/events?location_id=${bergen}`);
    expect(ignored.body.message).toContain('location_id ignored');
    expect((await admin.get('/api/events?mode=soon')).body.errorcode).toBe(420);
    expect((await admin.get('/api/events?startdate=tomorrow')).body.errorcode).toBe(420);
  });

  it('filters by competence, organisations, hosts, catalogue and custom attributes', async () => {
    const leadership = await idOf(t, acme, 'competences', { title: 'Leadership 101' });
    expect(await titles(`/api/events?competence_id=${leadership}`)).toEqual([OVERLAP, SPRING]);
    expect((await admin.get(`/api/competences/${leadership}/events`)).body.events.map((e: any) => e.title)).toEqual([OVERLAP, SPRING]);
    const ops = await idOf(t, acme, 'organisations', { name: 'Operations' });
    const hr = await idOf(t, acme, 'organisations', { name: 'Human Resources' });
    expect(await titles(`/api/events?organisation_ids=${ops}`)).toEqual([]);
    expect(await titles(`/api/events?organisation_ids=${ops}&recursive=1`)).toEqual([DEC]);
    expect(await titles(`/api/events?host_organisation_ids=${ops}`)).toEqual([OVERLAP, SPRING]);
    expect(await titles('/api/events?host_organisation_external_ids=1000')).toEqual([DEC]);
    expect(await titles(`/api/events?context_organisation_ids=${hr}`)).toEqual([LOCKED, DEC]);
    expect(await titles(`/api/events?category_ids=${await idOf(t, acme, 'categories', { name: 'Leadership' })}`)).toEqual([OVERLAP, SPRING]);
    expect(await titles(`/api/events?attribute_ids=${await idOf(t, acme, 'attributes', { name: 'Leads to certificate' })}`)).toEqual([LOCKED, DEC]);
    expect(await titles(`/api/events?competence_group_ids=${await idOf(t, acme, 'competence_groups', { name: 'Health, safety and environment' })}`)).toEqual([
      LOCKED,
      DEC,
    ]);
    expect(await titles('/api/events?term=spring')).toEqual([SPRING]);
    expect(await titles('/api/events?custom_attributes.region=north')).toEqual([DEC]);
    expect(await titles('/api/events?custom_attributes[cost_centre]=CC-17')).toEqual([DEC]);
    const unknown = await admin.get('/api/events?custom_attributes.colour=red');
    expect(unknown.body.errorcode).toBe(420);
    expect(unknown.body.message).toContain('region');
  });

  it('user_check tells whether the caller (or user_name) is signed on', async () => {
    const nils = await asAcme(t, acme.host, 'nils');
    const res = await nils.get(`/api/events/${ev[DEC]}?user_check=1`);
    expect(res.body.events[0]).toMatchObject({ signed_on: true, user_status: 'signed_on', min_age: 18, instructor_user_name: 'kari', prerequisites: [] });
    const spring = await nils.get(`/api/events?user_check=1&term=spring`);
    expect(spring.body.events[0]).toMatchObject({ signed_on: false, user_status: null });
    const forOla = await admin.get(`/api/events/${ev[SPRING]}?user_check=1&user_name=ola`);
    expect(forOla.body.events[0].prerequisites).toEqual([await idOf(t, acme, 'competences', { title: 'HSE basic course' })]);
    expect((await nils.get(`/api/events/${ev[DEC]}?user_check=1&user_name=ola`)).status).toBe(403);
  });

  it('security: 401 anonymous, 404 for unknown and other tenant events', async () => {
    expect((await client(t, acme.host).get('/api/events')).status).toBe(401);
    const g = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    const globexTitles = (await g.get('/api/events?mode=all&cancelled=1&limit=100')).body.events.map((e: any) => e.title);
    expect(globexTitles).not.toContain(DEC);
    // Ids are per tenant schema: acme's spring course id does not exist among globex's single event.
    expect(ev[SPRING]).not.toBe(Object.values(await eventIdsByTitle(t, globex))[0]);
    expect((await g.get(`/api/events/${ev[SPRING]}`)).status).toBe(404);
    expect((await g.get(`/api/events/${ev[SPRING]}/check_join`)).status).toBe(404);
    expect((await g.get(`/api/participants/${ev[SPRING]}`)).status).toBe(404);
    expect((await g.post(`/api/personevents/${ev[SPRING]}`)).status).toBe(404);
    const oslo = await idOf(t, acme, 'locations', { name: 'Oslo HQ, room Fjord' });
    const bergen = await idOf(t, acme, 'locations', { name: 'Bergen yard' });
    expect((await g.get(`/api/locations/${Math.max(oslo, bergen)}`)).status).toBe(404);
    expect((await admin.get('/api/events/999999')).body.errorcode).toBe(404);
  });
});

describe('participants', () => {
  it('the instructor and a superuser see everyone; a manager only their organisations; others 403', async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    const list = await kari.get(`/api/participants/${ev[DEC]}`);
    expect(list.status).toBe(200);
    expect(list.body.participants.map((p: any) => p.user_name)).toEqual(['nils']);
    expect(list.body.participants[0]).toMatchObject({ status: 'signed_on', waitlist: false, met: false });
    const same = await admin.get(`/api/events/${ev[DEC]}/participants`);
    expect(same.body.participants.map((p: any) => p.user_name)).toEqual(['nils']);
    const old = await kari.get(`/api/participants/${ev[OLD]}?passed=1`);
    expect(old.body.participants.map((p: any) => p.user_name)).toEqual(['ola']);
    expect((await kari.get(`/api/participants/${ev[OLD]}?passed=0`)).body.participants).toEqual([]);
    expect((await kari.get(`/api/participants/${ev[OLD]}?met=1`)).body.participants).toEqual([]);
    expect((await kari.get(`/api/participants/${ev[DEC]}?waitlist=1`)).body.participants).toEqual([]);
    const north = await idOf(t, acme, 'organisations', { name: 'Operations North' });
    const ops = await idOf(t, acme, 'organisations', { name: 'Operations' });
    expect((await kari.get(`/api/participants/${ev[DEC]}?organisation_id=${ops}`)).body.participants).toEqual([]);
    expect((await kari.get(`/api/participants/${ev[DEC]}?organisation_id=${ops}&recursive=1`)).body.participants).toHaveLength(1);
    expect((await kari.get(`/api/participants/${ev[DEC]}?organisation_id=${north}`)).body.participants).toHaveLength(1);
    const hr = await idOf(t, acme, 'organisations', { name: 'Human Resources' });
    const ola = await asAcme(t, acme.host, 'ola');
    expect((await ola.get(`/api/participants/${ev[DEC]}`)).status).toBe(403);
    expect((await ola.get(`/api/participants/${ev[OLD]}?organisation_id=${hr}`)).status).toBe(403);
    expect((await client(t, acme.host).get(`/api/participants/${ev[DEC]}`)).status).toBe(401);
  });

  it('one participant: self, manager, superuser; 404 when not signed on', async () => {
    const nils = await asAcme(t, acme.host, 'nils');
    expect((await nils.get(`/api/participants/${ev[DEC]}/nils`)).body.participants[0]).toMatchObject({ user_name: 'nils', firstname: 'Nils' });
    const ola = await asAcme(t, acme.host, 'ola');
    expect((await ola.get(`/api/participants/${ev[DEC]}/nils`)).status).toBe(403);
    expect((await ola.get(`/api/participants/${ev[DEC]}/ola`)).status).toBe(404);
    expect((await admin.get(`/api/participants/${ev[DEC]}/nobody`)).status).toBe(404);
  });
});

describe('locations', () => {
  it('filters by term, capacity, bounding box and availability', async () => {
    const names = async (url: string) => (await admin.get(url)).body.locations.map((l: any) => l.name);
    expect(await names('/api/locations')).toEqual(['Bergen yard', 'Oslo HQ, room Fjord']);
    expect(await names('/api/locations?term=oslo')).toEqual(['Oslo HQ, room Fjord']);
    expect(await names('/api/locations?minimum_capacity=10')).toEqual(['Oslo HQ, room Fjord']);
    expect(await names('/api/locations?sw_latitude=60&sw_longitude=5&ne_latitude=61&ne_longitude=6')).toEqual(['Bergen yard']);
    expect(await names('/api/locations?startdate=2031-12-10T00:00:00Z&enddate=2031-12-11T00:00:00Z')).toEqual(['Bergen yard']);
    const half = await admin.get('/api/locations?startdate=2031-12-10');
    expect(half.body).toMatchObject({ errorcode: 419 });
    expect(half.body.message).toContain('enddate');
    expect((await admin.get('/api/locations?sw_latitude=60')).body.errorcode).toBe(419);
    expect((await admin.get('/api/locations?sw_latitude=north&sw_longitude=1&ne_latitude=1&ne_longitude=1')).body.errorcode).toBe(420);
  });

  it('one location and its events in a range (both dates required)', async () => {
    const oslo = await idOf(t, acme, 'locations', { name: 'Oslo HQ, room Fjord' });
    expect((await admin.get(`/api/locations/${oslo}`)).body.locations[0]).toMatchObject({ location_id: oslo, capacity: 40, latitude: 59.9127 });
    const events = await admin.get(`/api/locations/${oslo}/events?startdate=2031-12-01&enddate=2031-12-31`);
    expect(events.body.events.map((e: any) => e.title)).toEqual([DEC, OVERLAP]);
    const missing = await admin.get(`/api/locations/${oslo}/events?startdate=2031-12-01`);
    expect(missing.body).toMatchObject({ errorcode: 419 });
    expect(missing.body.message).toContain('enddate');
    expect((await admin.get('/api/locations/999999')).status).toBe(404);
    expect((await client(t, acme.host).get('/api/locations')).status).toBe(401);
  });
});
