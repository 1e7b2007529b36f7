import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, asAcme, GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { idsByRef, userNames } from './demo-refs';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let org: Record<string, number>;
let role: Record<string, number>;
let comp: Record<string, number>;
let event: Record<string, number>;
type Client = Awaited<ReturnType<typeof asAcme>>;
let admin: Client, kari: Client, ola: Client, per: Client, globexAdmin: Client;

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([
    importDemoTenant(t, 'acme', (doc) => {
      // an expired and a failed registration, so "fulfilled" is tested independently of today's date
      doc.person_competences.push(
        { person: 'nils', competence: 'welding-cert', date: '2000-01-01', valid_until: '2001-01-01' },
        { person: 'siri', competence: 'welding-cert', date: '2024-01-01', passed: 0 },
      );
    }),
    importDemoTenant(t, 'globex'),
  ]);
  [org, role, comp, event] = await Promise.all((['organisations', 'roles', 'competences', 'events'] as const).map((table) => idsByRef(t, acme, table)));
  [admin, kari, ola, per] = await Promise.all([
    asAcme(t, acme.host, 'admin'),
    asAcme(t, acme.host, 'kari'),
    asAcme(t, acme.host, 'ola'),
    asAcme(t, acme.host, 'per'),
  ]);
  globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
});
afterAll(async () => t?.close());

describe('GET /api/person and /api/persons/[user_name]', () => {
  it('refuses anonymous callers with 401', async () => {
    expect((await client(t, acme.host).get('/api/person')).body).toMatchObject({ valid: false, errorcode: 401 });
    expect((await client(t, acme.host).get('/api/persons/ola')).status).toBe(401);
  });

  it('gives ola his own full person, without any password hash', async () => {
    const res = await ola.get('/api/person');
    expect(res.status).toBe(200);
    expect(res.body.person).toHaveLength(1);
    expect(res.body.person[0]).toMatchObject({
      user_name: 'ola',
      firstname: 'Ola',
      lastname: 'Hansen',
      email: 'ola@acme.example',
      mobile: '+4790000012',
      birthdate: '1990-04-01',
      extern_person_id: 'HR-4711',
      employee_code: 'A-0003',
      superuser: false,
      organisation: { organisation_id: org['acme-ops-north'], name: 'Operations North' },
      roles: [{ role_id: role.welder, name: 'Welder', meta_type: 'role' }],
      manages: [],
      must_change_password: null,
    });
    expect(JSON.stringify(res.body)).not.toMatch(/password_hash|argon2/);
    const same = await ola.get('/api/persons/ola');
    expect(same.body.persons).toEqual(res.body.person);
  });

  it('ola may not see per (403)', async () => {
    const res = await ola.get('/api/persons/per');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ valid: false, errorcode: 403 });
    expect(JSON.stringify(res.body)).not.toContain('Olsen');
  });

  it('kari, manager of Operations, sees ola in Operations North but not per in Human Resources', async () => {
    expect((await kari.get('/api/persons/ola')).body.persons[0]).toMatchObject({ user_name: 'ola', lastname: 'Hansen' });
    expect((await kari.get('/api/persons/per')).status).toBe(403);
    expect((await kari.get('/api/person')).body.person[0].manages).toEqual([{ organisation_id: org['acme-ops'], name: 'Operations' }]);
  });

  it('the superuser sees anyone', async () => {
    expect((await admin.get('/api/persons/per')).body.persons[0]).toMatchObject({ user_name: 'per', mobile: '+4790000014' });
    // Eva's password dates from 2020 and acme's password.max_age_days is 90
    expect((await admin.get('/api/persons/expired')).body.persons[0]).toMatchObject({ user_name: 'expired', must_change_password: 'expired' });
  });

  it('a logout invalidates the cookie', async () => {
    const cookie = await loginCookie(t, acme.host, 'ola', ACME_PASSWORDS.ola);
    expect((await client(t, acme.host, cookie).get('/api/person')).status).toBe(200);
    expect((await client(t, acme.host, cookie).get('/api/logout')).body).toMatchObject({ valid: true, message: 'logged out' });
    expect((await client(t, acme.host, cookie).get('/api/person')).body).toMatchObject({ valid: false, errorcode: 401 });
  });

  it('an unknown user name is 404, and acme persons are not found from globex', async () => {
    expect((await admin.get('/api/persons/nobody')).body).toMatchObject({ valid: false, errorcode: 404 });
    expect((await globexAdmin.get('/api/persons/ola')).status).toBe(404);
    expect((await globexAdmin.get('/api/persons/kari')).status).toBe(404);
  });

  it('honours view=simple and fields', async () => {
    const simple = (await ola.get('/api/person?view=simple')).body.person[0];
    expect(simple).not.toHaveProperty('roles');
    expect(simple).toMatchObject({ user_name: 'ola', organisation_id: org['acme-ops-north'] });
    const some = await ola.get('/api/persons/ola?fields=user_name,mobile');
    expect(some.body.persons).toEqual([{ user_name: 'ola', mobile: '+4790000012' }]);
    expect((await ola.get('/api/persons/ola?fields=nope')).body.errorcode).toBe(420);
  });
});

describe('GET /api/persons', () => {
  it('refuses anonymous callers (401) and persons who manage nothing (403)', async () => {
    expect((await client(t, acme.host).get('/api/persons')).status).toBe(401);
    expect((await ola.get('/api/persons')).status).toBe(403);
    expect((await per.get(`/api/persons?organisation_id=${org['acme-hr']}`)).status).toBe(403);
  });

  it('lists every person for the superuser, ordered by last name, in the simple view', async () => {
    const res = await admin.get('/api/persons');
    expect(userNames(res.body)).toEqual(['admin', 'siri', 'nils', 'expired', 'ola', 'kari', 'per']);
    expect(res.body.persons[0]).not.toHaveProperty('roles');
    expect(userNames((await admin.get('/api/persons?limit=2&offset=1')).body)).toEqual(['siri', 'nils']);
    expect(userNames((await admin.get('/api/persons?limit=2&start=2')).body)).toEqual(['nils', 'expired']);
    expect((await admin.get('/api/persons?limit=101')).body.message).toContain('limit 101 is above the maximum 100; served 100');
    expect((await admin.get('/api/persons?limit=0')).body).toMatchObject({ errorcode: 420 });
  });

  it('gives a manager without organisation_id the persons of the subtrees they manage', async () => {
    expect(userNames((await kari.get('/api/persons')).body)).toEqual(['siri', 'nils', 'ola', 'kari']);
  });

  it('organisation_id gives direct members; recursive=1 adds sub-organisations', async () => {
    expect(userNames((await kari.get(`/api/persons?organisation_id=${org['acme-ops']}`)).body)).toEqual(['kari']);
    expect(userNames((await kari.get(`/api/persons?organisation_id=${org['acme-ops']}&recursive=1`)).body)).toEqual(['siri', 'nils', 'ola', 'kari']);
    expect(userNames((await admin.get(`/api/persons?organisation_id=${org['acme-ops-north']}`)).body)).toEqual(['nils', 'ola']);
  });

  it('refuses a manager for an organisation outside their subtrees (403)', async () => {
    const res = await kari.get(`/api/persons?organisation_id=${org['acme-hr']}`);
    expect(res.body).toMatchObject({ valid: false, errorcode: 403 });
    expect((await kari.get(`/api/persons?organisation_ids=${org['acme-ops-north']},${org['acme-hr']}`)).status).toBe(403);
  });

  it('combines organisation_id and organisation_ids', async () => {
    const res = await admin.get(
      `/api/persons?organisation_id=${org['acme-ops-south']}&organisation_ids[]=${org['acme-hr']}&organisation_ids[]=${org['acme-ops-north']}`,
    );
    expect(userNames(res.body)).toEqual(['siri', 'nils', 'expired', 'ola', 'per']);
  });

  it('filters by role_ids (any of them)', async () => {
    expect(userNames((await admin.get(`/api/persons?role_ids=${role.welder}`)).body)).toEqual(['siri', 'nils', 'ola']);
    expect(userNames((await admin.get(`/api/persons?role_ids=${role['safety-rep']},${role['ops-lead']}`)).body)).toEqual(['siri', 'kari']);
  });

  it('filters by event_id (persons signed on)', async () => {
    expect(userNames((await admin.get(`/api/persons?event_id=${event['hse-basic-dec']}`)).body)).toEqual(['nils']);
    expect(userNames((await kari.get(`/api/persons?event_id=${event['hse-basic-2024']}`)).body)).toEqual(['ola']);
  });

  it('filters by has_competence_ids: only current, passed and still valid registrations count', async () => {
    // nils' welding-cert expired in 2001 and siri's has passed=0
    expect(userNames((await admin.get(`/api/persons?has_competence_ids=${comp['welding-cert']}`)).body)).toEqual(['ola']);
    // ola's hse-basic ran out on 2026-05-07; kari's is valid until 2031
    expect(userNames((await admin.get(`/api/persons?has_competence_ids=${comp['hse-basic']}`)).body)).toEqual(['kari']);
    expect(userNames((await admin.get(`/api/persons?has_competence_ids=${comp['hse-basic']},${comp['welding-cert']}`)).body)).toEqual([]);
  });

  it('term searches user name, first and last name ("first last"), e-mail and employee code, case-insensitively; LIKE wildcards are text', async () => {
    expect(userNames((await admin.get('/api/persons?term=NORDM')).body)).toEqual(['kari']);
    expect(userNames((await admin.get(`/api/persons?term=${encodeURIComponent('Kari Nord')}`)).body)).toEqual(['kari']);
    expect(userNames((await admin.get('/api/persons?term=ola@acme')).body)).toEqual(['ola']);
    expect(userNames((await admin.get('/api/persons?term=A-0002')).body)).toEqual(['kari']);
    expect(userNames((await admin.get('/api/persons?term=%25')).body)).toEqual([]);
    // within what a manager sees and the organisation asked for
    expect(userNames((await kari.get('/api/persons?term=ACME')).body)).toEqual(['siri', 'nils', 'ola', 'kari']);
    expect(userNames((await kari.get('/api/persons?term=per')).body)).toEqual([]);
    expect(userNames((await admin.get(`/api/organisations/${org['acme-ops-north']}/persons?term=dahl`)).body)).toEqual(['nils']);
  });

  it('refuses event_id together with has_competence_ids (420)', async () => {
    const res = await admin.get(`/api/persons?event_id=${event['hse-basic-dec']}&has_competence_ids=${comp['hse-basic']}`);
    expect(res.body).toMatchObject({ valid: false, errorcode: 420, parameter: 'has_competence_ids' });
  });

  it('answers 404 for ids that match nothing and 420 for malformed ones', async () => {
    expect((await admin.get('/api/persons?organisation_id=99999')).body.errorcode).toBe(404);
    expect((await admin.get('/api/persons?role_ids=99999')).body.errorcode).toBe(404);
    expect((await admin.get('/api/persons?event_id=99999')).body.errorcode).toBe(404);
    expect((await admin.get('/api/persons?organisation_id=abc')).body).toMatchObject({ errorcode: 420, parameter: 'organisation_id' });
  });

  it("does not show acme's organisations to globex (404)", async () => {
    // globex has two organisations; acme's Human Resources id does not exist there
    expect((await globexAdmin.get(`/api/persons?organisation_id=${org['acme-hr']}`)).status).toBe(404);
  });
});
