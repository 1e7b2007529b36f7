import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, ACME_PASSWORDS } from '../../support/login';
import { competenceIdsByTitle } from '../competences/catalogue-ids';

let t: TestApp;
let acme: DemoTenant;
let ids: Record<string, number>;
let ola: Awaited<ReturnType<typeof asAcme>>;
let kari: Awaited<ReturnType<typeof asAcme>>;
let admin: Awaited<ReturnType<typeof asAcme>>;
let since: string;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  [ola, kari, admin] = await Promise.all(['ola', 'kari', 'admin'].map((u) => asAcme(t, acme.host, u)));
  ids = await competenceIdsByTitle(admin);
  since = new Date().toISOString();
  // The registrations this test makes: the feed must show exactly these.
  expect((await kari.put(`/api/personcompetences/${ids['Supervised driving, 2 hours']}`).send({ user_name: 'ola', action: 'on' })).status).toBe(200);
  expect((await ola.put(`/api/personcompetences/${ids['Code of conduct signed']}`).send({ password: ACME_PASSWORDS.ola })).status).toBe(200);
  expect((await ola.put(`/api/personcompetences/${ids['TIG welding']}`).send({ passed: 60 })).status).toBe(200);
  expect((await ola.put(`/api/personcompetences/${ids['TIG welding']}`).send({ passed: 75 })).status).toBe(200);
  expect((await admin.put(`/api/personcompetences/${ids['Fire safety e-learning']}`).send({ user_name: 'per' })).status).toBe(200);
});
afterAll(async () => t?.close());

const changes = (api: typeof ola, query: string) => api.get(`/api/changes?Type=personcompetences&startdate=${encodeURIComponent(since)}${query}`);

describe('GET /api/changes?Type=personcompetences', () => {
  it('shows the registrations made in the test, history included, oldest first', async () => {
    const res = await changes(admin, '');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.changes.map((c: any) => [c.user_name, c.title, c.current, c.deleted])).toEqual([
      ['ola', 'Supervised driving, 2 hours', true, false],
      ['ola', 'Code of conduct signed', true, false],
      ['ola', 'TIG welding', false, false],
      ['ola', 'TIG welding', true, false],
      ['per', 'Fire safety e-learning', true, false],
    ]);
    expect(res.body.changes[0]).toMatchObject({ checked: true, registered_by: 'kari' });
    expect(res.body.changes[1]).toMatchObject({ signed: true });
    expect(res.body.changes.map((c: any) => c.passed)).toEqual([100, 100, 60, 75, 100]);
  });

  it('kari, manager of Operations, sees only Operations persons with organisation_id by external id', async () => {
    const res = await changes(kari, '&extern_organisation_id=1100');
    expect(res.body.changes.map((c: any) => c.user_name)).toEqual(['ola', 'ola', 'ola', 'ola']);
    expect((await changes(kari, '&extern_organisation_id=1200')).status).toBe(403);
    expect((await changes(kari, '')).status).toBe(403);
    expect((await changes(ola, '&extern_organisation_id=1110')).status).toBe(403);
    expect((await changes(admin, '&extern_organisation_id=999999')).status).toBe(404);
  });

  it('a deletion appears as {deleted: true} with the competence and the person', async () => {
    expect((await ola.delete(`/api/personcompetences/${ids['TIG welding']}`)).status).toBe(200);
    const res = await changes(admin, '');
    const deleted = res.body.changes.filter((c: any) => c.deleted);
    expect(deleted).toEqual([
      { competence_id: ids['TIG welding'], title: 'TIG welding', type: 'skill', user_name: 'ola', deleted: true, changed_at: expect.any(String) },
    ]);
  });

  it('enddate before the registrations shows none; paging works', async () => {
    const res = await admin.get(`/api/changes?Type=personcompetences&startdate=2020-01-01&enddate=2020-12-31`);
    expect(res.body.changes).toEqual([]);
    expect((await changes(admin, '&limit=2&offset=1')).body.changes.map((c: any) => c.title)).toEqual(['Code of conduct signed', 'TIG welding']);
  });

  it('names a missing Type or startdate (419) and bad values (420); needs a login', async () => {
    expect((await admin.get('/api/changes?startdate=2026-01-01')).body).toMatchObject({ errorcode: 419, parameter: 'Type' });
    expect((await admin.get('/api/changes?Type=personcompetences')).body).toMatchObject({ errorcode: 419, parameter: 'startdate' });
    expect((await admin.get('/api/changes?Type=persons&startdate=2026-01-01')).body.errorcode).toBe(420);
    expect((await admin.get('/api/changes?Type=events&startdate=yesterday')).body.errorcode).toBe(420);
    expect((await admin.get('/api/changes?Type=competences&startdate=2026-01-01&enddate=2025-01-01')).body.errorcode).toBe(420);
    expect((await client(t, acme.host).get('/api/changes?Type=events&startdate=2026-01-01')).status).toBe(401);
  });
});

describe('GET /api/changes for competences and events', () => {
  it('competences changed since import are the whole catalogue; managers may read it, workers not', async () => {
    const res = await kari.get('/api/changes?Type=competences&startdate=2020-01-01&limit=100');
    expect(res.body.changes).toHaveLength(16);
    expect((await kari.get(`/api/changes?Type=competences&startdate=${encodeURIComponent(since)}`)).body.changes).toEqual([]);
    expect((await ola.get('/api/changes?Type=competences&startdate=2020-01-01')).status).toBe(403);
  });

  it('events changed since a date (enddate ignored), for superusers', async () => {
    const res = await admin.get('/api/changes?Type=events&startdate=2020-01-01&enddate=2020-01-02&limit=100');
    expect(res.status).toBe(200);
    // the fixture's 6 events and 2 module events, all written at import
    expect(res.body.changes).toHaveLength(8);
    expect(res.body.changes.map((e: any) => e.title)).toContain('HSE basic course, cancelled run');
  });
});
