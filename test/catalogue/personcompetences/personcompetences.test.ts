import type { Knex } from 'knex';
import { KNEX } from '../../../src/platform/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, ACME_PASSWORDS } from '../../support/login';
import { competenceIdsByTitle, titles } from '../competences/catalogue-ids';

let t: TestApp;
let acme: DemoTenant;
let ids: Record<string, number>;
let ola: Awaited<ReturnType<typeof asAcme>>;
let kari: Awaited<ReturnType<typeof asAcme>>;
let siri: Awaited<ReturnType<typeof asAcme>>;
let admin: Awaited<ReturnType<typeof asAcme>>;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  [ola, kari, siri, admin] = await Promise.all([
    asAcme(t, acme.host, 'ola'),
    asAcme(t, acme.host, 'kari'),
    asAcme(t, acme.host, 'siri'),
    asAcme(t, acme.host, 'admin'),
  ]);
  ids = await competenceIdsByTitle(admin);
});
afterAll(async () => t?.close());

describe('GET /api/personcompetences', () => {
  it('ola (welder) is missing exactly the HSE basic course (expired 2026-05-07) and the forklift checklist', async () => {
    const res = await ola.get('/api/personcompetences?state=missing');
    expect(res.status).toBe(200);
    expect(titles(res.body.personcompetences)).toEqual(['Forklift onboarding checklist', 'HSE basic course']);
    const hse = res.body.personcompetences.find((x: any) => x.title === 'HSE basic course');
    expect(hse).toMatchObject({ reason: 'expired', valid_until: '2026-05-07', date: '2024-05-07', mandatory: true, user_name: 'ola' });
    const forklift = res.body.personcompetences.find((x: any) => x.title === 'Forklift onboarding checklist');
    expect(forklift.reason).toBe('items_missing');
    expect(titles(forklift.children)).toEqual(['Daily walk-around check', 'Supervised driving, 2 hours']);
  });

  it('with requirement=optional ola is missing exactly TIG welding', async () => {
    const res = await ola.get('/api/personcompetences?state=missing&requirement=optional');
    expect(titles(res.body.personcompetences)).toEqual(['TIG welding']);
  });

  it('passed lists what ola holds now: the welding certificate with school and year', async () => {
    const res = await ola.get('/api/personcompetences');
    expect(res.body.personcompetences).toHaveLength(1);
    expect(res.body.personcompetences[0]).toMatchObject({
      title: 'Welding certificate (EN ISO 9606)',
      state: 'passed',
      date: '2019-06-20',
      school: 'Bergen Technical School',
      graduation_year: '2019',
    });
  });

  it("kari, manager of Operations, sees ola's list; siri may not; unknown person is 404", async () => {
    expect((await kari.get('/api/personcompetences?state=missing&user_name=ola')).body.personcompetences).toHaveLength(2);
    const denied = await siri.get('/api/personcompetences?user_name=ola');
    expect(denied.status).toBe(403);
    expect(denied.body.errorcode).toBe(403);
    expect((await kari.get('/api/personcompetences?user_name=nobody')).body.errorcode).toBe(404);
    const anon = await client(t, acme.host).get('/api/personcompetences');
    expect(anon.status).toBe(401);
  });

  it('role_ids asks what is missing for another role (office: fire e-learning and code of conduct)', async () => {
    const roles = (await admin.get('/api/roles?role_meta_types=role&organisation_ids=1')).body;
    expect(roles.valid).toBe(true);
    const office = (await admin.get('/api/roles?user_name=per')).body.roles[0];
    expect(office.name).toBe('Office worker');
    const res = await ola.get(`/api/personcompetences?state=missing&role_ids=${office.role_id}`);
    expect(titles(res.body.personcompetences)).toEqual(['Code of conduct signed', 'Fire safety e-learning']);
  });

  it('rejects bad state, types and paging', async () => {
    expect((await ola.get('/api/personcompetences?state=maybe')).body.errorcode).toBe(420);
    expect((await ola.get('/api/personcompetences?types=banana')).body.errorcode).toBe(420);
    expect((await ola.get('/api/personcompetences?limit=101')).body.message).toContain('served 100');
    expect((await ola.get('/api/personcompetences?limit=1.5')).body.errorcode).toBe(420);
  });
});

describe('PUT /api/personcompetences checklist items', () => {
  it('ola cannot check his own "Supervised driving, 2 hours" (checked by a manager)', async () => {
    const res = await ola.put(`/api/personcompetences/${ids['Supervised driving, 2 hours']}`).send({ action: 'on' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ valid: false, errorcode: 403 });
  });

  it("kari checks ola's supervised-driving item", async () => {
    const res = await kari.put(`/api/personcompetences/${ids['Supervised driving, 2 hours']}`).send({ user_name: 'ola', action: 'on' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.personcompetences[0]).toMatchObject({ user_name: 'ola', checked: true, checked_by: 'manager', registered_by: 'kari' });
  });

  it("kari cannot check ola's self-checked item with action, ola can; then the checklist is held", async () => {
    const walk = ids['Daily walk-around check'];
    expect((await kari.put(`/api/personcompetences/${walk}`).send({ user_name: 'ola', action: 'on' })).status).toBe(403);
    const res = await ola.put(`/api/personcompetences/${walk}`).send({ action: 'on' });
    expect(res.status).toBe(200);
    expect(res.body.personcompetences[0]).toMatchObject({ checked: true, state: 'passed' });
    const missing = await ola.get('/api/personcompetences?state=missing');
    expect(titles(missing.body.personcompetences)).toEqual(['HSE basic course']);
    const passed = await ola.get('/api/personcompetences');
    expect(titles(passed.body.personcompetences)).toEqual(['Forklift onboarding checklist', 'Welding certificate (EN ISO 9606)']);
  });

  it('action=off unchecks again (history kept), and a manager override without action checks it regardless', async () => {
    const walk = ids['Daily walk-around check'];
    const off = await ola.put(`/api/personcompetences/${walk}`).send({ action: 'off' });
    expect(off.body.personcompetences[0]).toMatchObject({ checked: false, state: 'missing' });
    expect(titles((await ola.get('/api/personcompetences?state=missing')).body.personcompetences)).toContain('Forklift onboarding checklist');
    const override = await kari.put(`/api/personcompetences/${walk}`).send({ user_name: 'ola' });
    expect(override.body.personcompetences[0]).toMatchObject({ checked: true, override: true });
  });

  it('ola must send action (419), and an unknown action is a 420', async () => {
    const walk = ids['Daily walk-around check'];
    expect((await ola.put(`/api/personcompetences/${walk}`).send({})).body.errorcode).toBe(419);
    expect((await ola.put(`/api/personcompetences/${walk}`).send({ action: 'maybe' })).body.errorcode).toBe(420);
  });
});

describe('PUT /api/personcompetences signatures', () => {
  const coc = () => ids['Code of conduct signed'];

  it('a wrong password signs nothing (420)', async () => {
    const res = await ola.put(`/api/personcompetences/${coc()}`).send({ password: 'wrong-password' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(JSON.stringify(res.body)).not.toContain('wrong-password');
    expect((await ola.get(`/api/personcompetences/${coc()}`)).body.errorcode).toBe(404);
  });

  it('GET one registration: self, manager; another worker 403; unknown competence 404', async () => {
    const id = ids['HSE basic course'];
    expect((await ola.get(`/api/personcompetences/${id}`)).body.personcompetences[0]).toMatchObject({ state: 'missing', reason: 'expired', grade: 5.5 });
    expect((await kari.get(`/api/personcompetences/${id}?user_name=ola`)).status).toBe(200);
    expect((await siri.get(`/api/personcompetences/${id}?user_name=ola`)).status).toBe(403);
    expect((await ola.get('/api/personcompetences/999999')).status).toBe(404);
    expect((await client(t, acme.host).get(`/api/personcompetences/${id}`)).status).toBe(401);
  });

  it('a missing password is a 419', async () => {
    expect((await ola.put(`/api/personcompetences/${coc()}`).send({})).body.errorcode).toBe(419);
  });

  it('nobody can sign for another person, not even a superuser with the right password', async () => {
    const res = await admin.put(`/api/personcompetences/${coc()}`).send({ user_name: 'ola', password: ACME_PASSWORDS.ola });
    expect(res.status).toBe(403);
    const kariTry = await kari.put(`/api/personcompetences/${coc()}`).send({ user_name: 'ola', password: ACME_PASSWORDS.kari });
    expect(kariTry.status).toBe(403);
  });

  it('after 5 wrong passwords signing is refused (429) even with the right one', async () => {
    const nils = await asAcme(t, acme.host, 'nils');
    for (let i = 0; i < 5; i++) expect((await nils.put(`/api/personcompetences/${coc()}`).send({ password: `guess-${i}` })).body.errorcode).toBe(420);
    const blocked = await nils.put(`/api/personcompetences/${coc()}`).send({ password: ACME_PASSWORDS.nils });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ valid: false, errorcode: 429 });
  });

  it('ola signs the code of conduct with his own correct password', async () => {
    const res = await ola.put(`/api/personcompetences/${coc()}`).send({ password: ACME_PASSWORDS.ola });
    expect(res.status).toBe(200);
    expect(res.body.personcompetences[0]).toMatchObject({ signed: true, state: 'passed', user_name: 'ola' });
    expect(JSON.stringify(res.body)).not.toContain(ACME_PASSWORDS.ola);
  });
});

describe('PUT /api/personcompetences per type', () => {
  it("kari registers ola's HSE course: valid_until follows 24 months validity, grade and diploma stored", async () => {
    const res = await kari
      .put(`/api/personcompetences/${ids['HSE basic course']}`)
      .type('form')
      .send({ user_name: 'ola', date: '2026-11-01', grade: '4.5', show_course_diploma: '' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.personcompetences[0]).toMatchObject({ date: '2026-11-01', valid_until: '2028-11-01', passed: 100, grade: 4.5, show_course_diploma: true });
    expect(titles((await ola.get('/api/personcompetences?state=missing')).body.personcompetences)).not.toContain('HSE basic course');
  });

  it('ola may not register a course for himself', async () => {
    const res = await ola.put(`/api/personcompetences/${ids['Leadership 101']}`).send({});
    expect(res.status).toBe(403);
  });

  it('ola registers his TIG welding skill; passed must be 0-100', async () => {
    const res = await ola.put(`/api/personcompetences/${ids['TIG welding']}`).send({ passed: 70 });
    expect(res.body.personcompetences[0]).toMatchObject({ passed: 70, skill_level: 70, state: 'passed' });
    expect((await ola.put(`/api/personcompetences/${ids['TIG welding']}`).send({ passed: 101 })).body.errorcode).toBe(420);
  });

  it('formal competence: graduation_year must be four digits; grade does not apply (420)', async () => {
    const id = ids['Welding certificate (EN ISO 9606)'];
    const bad = await ola.put(`/api/personcompetences/${id}`).send({ graduation_year: '19' });
    expect(bad.body).toMatchObject({ errorcode: 420, parameter: 'graduation_year' });
    expect((await ola.put(`/api/personcompetences/${id}`).send({ grade: 3 })).body).toMatchObject({ errorcode: 420, parameter: 'grade' });
    const ok = await ola.put(`/api/personcompetences/${id}`).send({ school: 'Oslo Tech', graduation_year: '2020', date: '2020-06-01' });
    expect(ok.body.personcompetences[0]).toMatchObject({ school: 'Oslo Tech', graduation_year: '2020', valid_until: null });
  });

  it('valid_until before date is a 420; an unknown competence is a 404', async () => {
    const id = ids['TIG welding'];
    expect((await ola.put(`/api/personcompetences/${id}`).send({ date: '2026-01-10', valid_until: '2026-01-01' })).body.errorcode).toBe(420);
    expect((await ola.put('/api/personcompetences/999999').send({})).body.errorcode).toBe(404);
  });

  it('siri cannot register anything for ola; anonymous is 401', async () => {
    expect((await siri.put(`/api/personcompetences/${ids['TIG welding']}`).send({ user_name: 'ola' })).status).toBe(403);
    expect((await client(t, acme.host).put(`/api/personcompetences/${ids['TIG welding']}`).send({})).status).toBe(401);
  });
});

describe('DELETE /api/personcompetences', () => {
  it("removes every occurrence of ola's skill registration; a second delete is 404", async () => {
    const id = ids['TIG welding'];
    await ola.put(`/api/personcompetences/${id}`).send({ passed: 80 });
    const res = await ola.delete(`/api/personcompetences/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.personcompetences[0]).toMatchObject({ competence_id: id, deleted: true, user_name: 'ola' });
    expect((await ola.get(`/api/personcompetences/${id}`)).body.errorcode).toBe(404);
    expect((await ola.delete(`/api/personcompetences/${id}`)).body.errorcode).toBe(404);
  });

  it('ola cannot remove his HSE course; kari can', async () => {
    const id = ids['HSE basic course'];
    expect((await ola.delete(`/api/personcompetences/${id}`)).status).toBe(403);
    expect((await siri.delete(`/api/personcompetences/${id}?user_name=ola`)).status).toBe(403);
    expect((await kari.delete(`/api/personcompetences/${id}?user_name=ola`)).status).toBe(200);
  });
});

describe('GET /api/competencelevel', () => {
  it('siri (welder and safety rep) holds none of her 3 mandatory competences (HSE basic, welding certificate, forklift): level 0', async () => {
    const res = await siri.get('/api/competencelevel');
    expect(res.body.competencelevel).toEqual([{ user_name: 'siri', required: 3, fulfilled: 0, missing: 3, competence_level: 0 }]);
  });

  it('kari (operations lead) holds none of Leadership 101: level 0; per (office) holds 1 of 2: 50', async () => {
    expect((await kari.get('/api/competencelevel')).body.competencelevel[0]).toMatchObject({ required: 1, fulfilled: 0, competence_level: 0 });
    expect((await admin.get('/api/competencelevel?user_name=per')).body.competencelevel[0]).toMatchObject({ required: 2, fulfilled: 1, competence_level: 50 });
  });

  it('Operations level: kari 0/1, ola 2/3 (forklift done, welding certificate), siri 0/3, nils 0/3 = 2 of 10 = 20', async () => {
    const knex = t.container.resolve<Knex>(KNEX);
    const ops = await knex.withSchema(acme.schema).table('organisations').where({ ref: 'acme-ops' }).first();
    const res = await kari.get(`/api/competencelevel?organisation_id=${ops.id}`);
    expect(res.body.competencelevel).toEqual([{ organisation_id: ops.id, persons: 4, required: 10, fulfilled: 2, missing: 8, competence_level: 20 }]);
    expect((await ola.get(`/api/competencelevel?organisation_id=${ops.id}`)).status).toBe(403);
  });

  it("organisation level is for its managers and superusers; another tenant's organisation is 404", async () => {
    const orgs = (await admin.get('/api/competencelevel?organisation_id=999999')).body;
    expect(orgs.errorcode).toBe(404);
    expect((await siri.get('/api/competencelevel?user_name=ola')).status).toBe(403);
  });
});
