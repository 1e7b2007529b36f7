import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, asAcme, GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { form, idsByRef } from './demo-refs';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let role: Record<string, number>;
type Client = Awaited<ReturnType<typeof asAcme>>;
let admin: Client, kari: Client, per: Client, globexAdmin: Client;

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([
    importDemoTenant(t, 'acme', (doc) => {
      // manager of the whole tree, including the superuser's own organisation
      doc.persons.push({ user_name: 'boss', password: 'Boss-Manager-Pass-1', organisation: 'acme-hr', roles: [], manages: ['acme'] });
    }),
    importDemoTenant(t, 'globex'),
  ]);
  role = await idsByRef(t, acme, 'roles');
  [admin, kari, per] = await Promise.all([asAcme(t, acme.host, 'admin'), asAcme(t, acme.host, 'kari'), asAcme(t, acme.host, 'per')]);
  globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
});
afterAll(async () => t?.close());

describe('PUT /api/persons/[user_name]: profile', () => {
  it('refuses anonymous callers with 401', async () => {
    expect(
      (
        await client(t, acme.host)
          .put('/api/persons/ola')
          .type('form')
          .send(form({ 'person_data[mobile]': '+4799999999' }))
      ).status,
    ).toBe(401);
  });

  it("kari, manager of Operations, can update ola's mobile; nothing else changes", async () => {
    const res = await kari
      .put('/api/persons/ola')
      .type('form')
      .send(form({ 'person_data[mobile]': '+47 912 34 567' }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, message: 'person updated' });
    expect(res.body.persons[0]).toMatchObject({
      user_name: 'ola',
      mobile: '+4791234567',
      email: 'ola@acme.example',
      firstname: 'Ola',
      birthdate: '1990-04-01',
    });
    const ola = await asAcme(t, acme.host, 'ola');
    expect((await ola.get('/api/person')).body.person[0].mobile).toBe('+4791234567');
  });

  it('a person updates their own profile without old_password', async () => {
    const nils = await asAcme(t, acme.host, 'nils');
    const res = await nils.put('/api/persons/nils').send({ person_data: { jobtitle: 'Welder', city: 'Bergen' } });
    expect(res.body.persons[0]).toMatchObject({ jobtitle: 'Welder', city: 'Bergen', firstname: 'Nils' });
  });

  it('ola may not update per (403), kari may not update per (403), the superuser may', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    expect((await ola.put('/api/persons/per').send({ person_data: { city: 'X' } })).body).toMatchObject({ valid: false, errorcode: 403 });
    expect((await kari.put('/api/persons/per').send({ person_data: { city: 'X' } })).status).toBe(403);
    expect((await admin.put('/api/persons/per').send({ person_data: { city: 'Oslo' } })).body.persons[0].city).toBe('Oslo');
  });

  it("a manager above a superuser's organisation may not change the superuser (403)", async () => {
    const boss = client(t, acme.host, await loginCookie(t, acme.host, 'boss', 'Boss-Manager-Pass-1'));
    expect((await boss.get('/api/persons/admin')).status).toBe(200);
    expect((await boss.put('/api/persons/admin').send({ person_data: { password: 'Taken-Over-1' } })).body).toMatchObject({ valid: false, errorcode: 403 });
    expect((await boss.delete(`/api/persons/admin?role_ids=${role.office}`)).status).toBe(403);
    expect((await boss.put('/api/persons/per').send({ person_data: { city: 'Drammen' } })).body.persons[0].city).toBe('Drammen');
  });

  it('acme persons are not found from globex (404)', async () => {
    expect((await globexAdmin.put('/api/persons/ola').send({ person_data: { city: 'X' } })).status).toBe(404);
    expect((await admin.put('/api/persons/nobody').send({ person_data: { city: 'X' } })).body.errorcode).toBe(404);
  });

  it('rejects malformed person_data fields with 420 naming the field', async () => {
    const cases: [string, string][] = [
      ['email', 'not-an-email'],
      ['birthdate', '1990-02-30'],
      ['birthdate', '01.04.1990'],
      ['mobile', '90000012'],
      ['mobile', '+47abc'],
    ];
    for (const [field, value] of cases) {
      const res = await kari
        .put('/api/persons/ola')
        .type('form')
        .send(form({ [`person_data[${field}]`]: value }));
      expect(res.body, `${field}=${value}`).toMatchObject({ valid: false, errorcode: 420, parameter: `person_data[${field}]` });
    }
    const unknown = await kari.put('/api/persons/ola').send({ person_data: { superuser: true } });
    expect(unknown.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(unknown.body.message).toContain('superuser');
  });

  it('refuses a user name that is taken (420)', async () => {
    const res = await admin.put('/api/persons/siri').send({ person_data: { user_name: 'ola' } });
    expect(res.body).toMatchObject({ errorcode: 420, parameter: 'person_data[user_name]' });
  });
});

describe('PUT /api/persons/[user_name]: passwords', () => {
  it('self needs old_password and password_match to set a password', async () => {
    const siri = await asAcme(t, acme.host, 'siri');
    const put = (body: object) => siri.put('/api/persons/siri').send(body);
    expect((await put({ person_data: { password: 'Siri-New-Pass-2' } })).body).toMatchObject({ errorcode: 419, parameter: 'old_password' });
    expect((await put({ person_data: { password: 'Siri-New-Pass-2' }, old_password: ACME_PASSWORDS.siri })).body).toMatchObject({
      errorcode: 419,
      parameter: 'password_match',
    });
    expect((await put({ person_data: { password: 'Siri-New-Pass-2' }, old_password: 'wrong', password_match: 'Siri-New-Pass-2' })).body).toMatchObject({
      errorcode: 420,
      parameter: 'old_password',
    });
    expect((await put({ person_data: { password: 'Siri-New-Pass-2' }, old_password: ACME_PASSWORDS.siri, password_match: 'other' })).body).toMatchObject({
      errorcode: 420,
      parameter: 'password_match',
    });
    expect((await put({ person_data: { password: 'short' }, old_password: ACME_PASSWORDS.siri, password_match: 'short' })).body).toMatchObject({
      errorcode: 420,
      parameter: 'person_data[password]',
    });
    expect((await put({ person_data: { user_name: 'siri2' } })).body).toMatchObject({ errorcode: 419, parameter: 'old_password' });

    const ok = await put({ person_data: { password: 'Siri-New-Pass-2' }, old_password: ACME_PASSWORDS.siri, password_match: 'Siri-New-Pass-2' });
    expect(ok.body).toMatchObject({ valid: true });
    expect(ok.body.persons[0].must_change_password).toBeNull();
    expect(JSON.stringify(ok.body)).not.toContain('Siri-New-Pass-2');
    expect((await siri.get('/api/person')).status).toBe(200);
    expect((await client(t, acme.host).post('/api/login').send({ user_name: 'siri', password: ACME_PASSWORDS.siri, login: 1 })).status).toBe(401);
    await loginCookie(t, acme.host, 'siri', 'Siri-New-Pass-2');
  });

  it('the helper fields are also accepted inside person_data (bracket form)', async () => {
    const nils = await asAcme(t, acme.host, 'nils');
    const res = await nils
      .put('/api/persons/nils')
      .type('form')
      .send(
        form({
          'person_data[password]': 'Nils-New-Pass-2',
          'person_data[old_password]': ACME_PASSWORDS.nils,
          'person_data[password_match]': 'Nils-New-Pass-2',
        }),
      );
    expect(res.body).toMatchObject({ valid: true });
    await loginCookie(t, acme.host, 'nils', 'Nils-New-Pass-2');
  });

  it("a password set by kari puts ola in 418, ends ola's sessions, and ola's own change ends it", async () => {
    const olaA = await asAcme(t, acme.host, 'ola');
    const olaB = await asAcme(t, acme.host, 'ola');
    const set = await kari.put('/api/persons/ola').send({ person_data: { password: 'Set-By-Kari-1' } });
    expect(set.body.persons[0].must_change_password).toBe('changed_by_other');
    expect((await olaA.get('/api/person')).status).toBe(401);
    expect((await olaB.get('/api/person')).status).toBe(401);

    const login = await client(t, acme.host).post('/api/login').send({ user_name: 'ola', password: 'Set-By-Kari-1', login: 1 });
    expect(login.body.login[0].must_change_password).toBe(true);
    const ola = client(t, acme.host, await loginCookie(t, acme.host, 'ola', 'Set-By-Kari-1'));
    const blocked = await ola.get('/api/person');
    expect(blocked.body).toMatchObject({ valid: false, errorcode: 418 });
    expect(blocked.status).toBe(403);
    expect((await ola.put('/api/persons/ola').send({ person_data: { city: 'Bergen' } })).body.errorcode).toBe(418);

    const own = await ola
      .put('/api/persons/ola')
      .send({ person_data: { password: 'Ola-Own-Pass-2' }, old_password: 'Set-By-Kari-1', password_match: 'Ola-Own-Pass-2' });
    expect(own.body).toMatchObject({ valid: true });
    expect((await ola.get('/api/person')).body.person[0]).toMatchObject({ user_name: 'ola', must_change_password: null });
  });

  it('a superuser sets a password without old_password or password_match', async () => {
    const res = await admin.put('/api/persons/kari').send({ person_data: { password: 'Set-By-Admin-1' } });
    expect(res.body.persons[0].must_change_password).toBe('changed_by_other');
    kari = client(t, acme.host, await loginCookie(t, acme.host, 'kari', 'Set-By-Admin-1'));
    const own = await kari
      .put('/api/persons/kari')
      .send({ person_data: { password: 'Kari-Own-Pass-2' }, old_password: 'Set-By-Admin-1', password_match: 'Kari-Own-Pass-2' });
    expect(own.body).toMatchObject({ valid: true });
  });
});

describe('the expired account (Eva)', () => {
  it('gets 418 on everything until she changes her password, then works', async () => {
    const eva = await asAcme(t, acme.host, 'expired');
    for (const res of [
      await eva.get('/api/person'),
      await eva.get('/api/persons/expired'),
      await eva.get('/api/persons'),
      await eva.get('/api/organisations'),
      await eva.get('/api/configitems/mail.from'),
      await eva.put('/api/persons/expired').send({ person_data: { city: 'Oslo' } }),
      await eva.put('/api/persons/per').send({ person_data: { password: 'Eva-Sets-Per-1' } }),
      await eva.delete(`/api/persons/expired?role_ids=${role.office}`),
    ]) {
      expect(res.body).toMatchObject({ valid: false, errorcode: 418 });
    }
    const same = await eva
      .put('/api/persons/expired')
      .send({ person_data: { password: ACME_PASSWORDS.expired }, old_password: ACME_PASSWORDS.expired, password_match: ACME_PASSWORDS.expired });
    expect(same.body).toMatchObject({ errorcode: 420, parameter: 'person_data[password]' });

    const changed = await eva
      .put('/api/persons/expired')
      .send({ person_data: { password: 'Eva-Fresh-Pass-2' }, old_password: ACME_PASSWORDS.expired, password_match: 'Eva-Fresh-Pass-2' });
    expect(changed.body).toMatchObject({ valid: true });
    const me = await eva.get('/api/person');
    expect(me.status).toBe(200);
    expect(me.body.person[0]).toMatchObject({ user_name: 'expired', firstname: 'Eva', must_change_password: null });
    expect(Date.now() - Date.parse(me.body.person[0].password_changed_at)).toBeLessThan(60 * 60 * 1000);
  });
});

describe('roles', () => {
  it('PUT role_ids replaces the roles (superuser, manager); self may not', async () => {
    const res = await admin.put('/api/persons/siri').send({ role_ids: [role.welder, role.office] });
    expect(res.body.persons[0].roles.map((r: { name: string }) => r.name)).toEqual(['Welder', 'Office worker']);
    const byKari = await kari.put('/api/persons/siri').type('form').send(`role_ids=${role['safety-rep']}`);
    expect(byKari.body.persons[0].roles.map((r: { name: string }) => r.name)).toEqual(['Safety representative']);
    const siri = client(t, acme.host, await loginCookie(t, acme.host, 'siri', 'Siri-New-Pass-2'));
    expect((await siri.put('/api/persons/siri').send({ role_ids: [role.office] })).status).toBe(403);
    expect((await admin.put('/api/persons/siri').send({ role_ids: [99999] })).body.errorcode).toBe(404);
  });

  it('DELETE removes the given roles (superuser, manager); self and others get 403', async () => {
    expect((await client(t, acme.host).delete(`/api/persons/per?role_ids=${role.office}`)).status).toBe(401);
    const perSelf = await per.delete(`/api/persons/per?role_ids=${role.office}`);
    expect(perSelf.body).toMatchObject({ valid: false, errorcode: 403 });
    expect((await kari.delete(`/api/persons/per?role_ids=${role.office}`)).status).toBe(403);
    expect((await globexAdmin.delete(`/api/persons/per?role_ids=${role.office}`)).status).toBe(404);
    expect((await admin.delete('/api/persons/per')).body).toMatchObject({ errorcode: 419, parameter: 'role_ids' });

    const res = await admin.delete(`/api/persons/per?role_ids=${role.office}`);
    expect(res.body).toMatchObject({ valid: true, message: 'removed 1 role(s)' });
    expect(res.body.persons[0].roles).toEqual([]);
    await admin.put('/api/persons/nils').send({ role_ids: [role.welder, role.office] });
    const byKari = await kari.delete(`/api/persons/nils?role_ids[]=${role.office}`);
    expect(byKari.body.persons[0].roles.map((r: { name: string }) => r.name)).toEqual(['Welder']);
  });
});
