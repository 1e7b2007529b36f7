import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { NewPasswordMail } from '../../../src/flows/passwords/mail-new-password';
import { form, idsByRef } from './demo-refs';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let org: Record<string, number>;
let role: Record<string, number>;
type Client = Awaited<ReturnType<typeof asAcme>>;
let admin: Client, kari: Client, ola: Client, globexAdmin: Client;

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  [org, role] = await Promise.all([idsByRef(t, acme, 'organisations'), idsByRef(t, acme, 'roles')]);
  [admin, kari, ola] = await Promise.all([asAcme(t, acme.host, 'admin'), asAcme(t, acme.host, 'kari'), asAcme(t, acme.host, 'ola')]);
  globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
});
afterAll(async () => t?.close());

const newPerson = (organisationId: number, roleId: number, data: Record<string, unknown>) => ({
  organisation_id: organisationId,
  role_id: roleId,
  person_data: data,
});

describe('POST /api/persons', () => {
  it('refuses anonymous callers (401) and persons who do not manage the organisation (403)', async () => {
    const body = newPerson(org['acme-ops-north'], role.welder, { user_name: 'trond' });
    expect((await client(t, acme.host).post('/api/persons').send(body)).status).toBe(401);
    expect((await ola.post('/api/persons').send(body)).body).toMatchObject({ valid: false, errorcode: 403 });
    expect((await kari.post('/api/persons').send(newPerson(org['acme-hr'], role.office, { user_name: 'trond' }))).status).toBe(403);
  });

  it('kari creates a welder in Operations North (bracket form); the answer is the full person', async () => {
    const res = await kari
      .post('/api/persons')
      .type('form')
      .send(
        form({
          organisation_id: org['acme-ops-north'],
          role_id: role.welder,
          'person_data[user_name]': 'trond',
          'person_data[firstname]': 'Trond',
          'person_data[lastname]': 'Lie',
          'person_data[email]': 'trond@acme.example',
          'person_data[mobile]': '+4790000099',
          'person_data[birthdate]': '1999-09-09',
        }),
      );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, message: 'person created' });
    expect(res.body.persons[0]).toMatchObject({
      user_name: 'trond',
      firstname: 'Trond',
      lastname: 'Lie',
      email: 'trond@acme.example',
      mobile: '+4790000099',
      birthdate: '1999-09-09',
      organisation: { organisation_id: org['acme-ops-north'], name: 'Operations North' },
      roles: [{ role_id: role.welder, name: 'Welder', meta_type: 'role' }],
      superuser: false,
      must_change_password: null,
    });
    expect((await kari.get('/api/persons/trond')).status).toBe(200);
  });

  it('accepts person_data as a JSON string; a given password works and must be changed at first login', async () => {
    const res = await admin
      .post('/api/persons')
      .type('form')
      .send(
        form({
          organisation_id: org['acme-hr'],
          role_id: role.office,
          person_data: JSON.stringify({ user_name: 'hilde', password: 'Hilde-Start-1' }),
        }),
      );
    expect(res.body.persons[0]).toMatchObject({ user_name: 'hilde', must_change_password: 'changed_by_other' });
    expect(JSON.stringify(res.body)).not.toMatch(/Hilde-Start-1|argon2|password_hash/);
    const hilde = client(t, acme.host, await loginCookie(t, acme.host, 'hilde', 'Hilde-Start-1'));
    expect((await hilde.get('/api/person')).body.errorcode).toBe(418);
  });

  it('refuses a duplicate user_name with 420', async () => {
    const res = await admin.post('/api/persons').send(newPerson(org['acme-hr'], role.office, { user_name: 'ola' }));
    expect(res.body).toMatchObject({ valid: false, errorcode: 420, parameter: 'person_data[user_name]' });
  });

  it('names missing (419) and malformed (420) parameters', async () => {
    const missingRole = await admin.post('/api/persons').send({ organisation_id: org['acme-hr'], person_data: { user_name: 'x1' } });
    expect(missingRole.body).toMatchObject({ errorcode: 419, parameter: 'role_id' });
    const missingUser = await admin.post('/api/persons').send(newPerson(org['acme-hr'], role.office, { firstname: 'X' }));
    expect(missingUser.body).toMatchObject({ errorcode: 419, parameter: 'person_data[user_name]' });
    const badEmail = await admin.post('/api/persons').send(newPerson(org['acme-hr'], role.office, { user_name: 'x1', email: 'x@' }));
    expect(badEmail.body).toMatchObject({ errorcode: 420, parameter: 'person_data[email]' });
    const helper = await admin.post('/api/persons').send(newPerson(org['acme-hr'], role.office, { user_name: 'x1', old_password: 'a' }));
    expect(helper.body).toMatchObject({ errorcode: 420 });
    const badJson = await admin
      .post('/api/persons')
      .type('form')
      .send(form({ organisation_id: org['acme-hr'], role_id: role.office, person_data: '{nope' }));
    expect(badJson.body).toMatchObject({ errorcode: 420, parameter: 'person_data' });
  });

  it('answers 404 for an unknown organisation or role, and for acme ids on globex', async () => {
    expect((await admin.post('/api/persons').send(newPerson(99999, role.office, { user_name: 'x2' }))).body.errorcode).toBe(404);
    expect((await admin.post('/api/persons').send(newPerson(org['acme-hr'], 99999, { user_name: 'x2' }))).body.errorcode).toBe(404);
    // globex has two organisations, so acme's Human Resources id is unknown there
    expect((await globexAdmin.post('/api/persons').send(newPerson(org['acme-hr'], 1, { user_name: 'x2' }))).status).toBe(404);
  });

  it('send_login creates the person and queues a login mail to them through the messaging outbox', async () => {
    const res = await admin
      .post('/api/persons')
      .send({ ...newPerson(org['acme-hr'], role.office, { user_name: 'x3', email: 'x3@acme.example' }), send_login: true });
    expect(res.body).toMatchObject({ valid: true, message: 'person created; a login was sent' });
    const mails = await admin.get('/api/messages?user_name=x3');
    expect(mails.body.messages).toHaveLength(1);
    expect(mails.body.messages[0].title).toBe('Your login');
    expect(JSON.stringify(mails.body)).not.toMatch(/password_hash/);
  });
});

describe('POST /api/persons with another password mail registered', () => {
  it('hands the new person to the password mail, in the creating transaction, when send_login is true, and only then', async () => {
    const sent: { personId: number; reason: string }[] = [];
    const app = await createTestApp();
    try {
      const fake = { write: async (personId: number, reason: string) => (sent.push({ personId, reason }), true) };
      app.container.register(NewPasswordMail, { useValue: fake as unknown as NewPasswordMail });
      const tenant = await importDemoTenant(app, 'acme');
      const ids = await idsByRef(app, tenant, 'organisations');
      const roles = await idsByRef(app, tenant, 'roles');
      const a = await asAcme(app, tenant.host, 'admin');
      const res = await a
        .post('/api/persons')
        .type('form')
        .send(form({ organisation_id: ids.acme, role_id: roles.office, 'person_data[user_name]': 'mia', send_login: 1 }));
      expect(res.body).toMatchObject({ valid: true, message: 'person created; a login was sent' });
      await a.post('/api/persons').send({ organisation_id: ids.acme, role_id: roles.office, person_data: { user_name: 'max' }, send_login: 'false' });
      expect(sent).toEqual([{ personId: res.body.persons[0].person_id, reason: 'send_login' }]);
    } finally {
      await app.close();
    }
  });
});
