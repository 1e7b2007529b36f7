import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, asAcme } from '../../support/login';
import { ACME_SWT, inAnHour, swtToken } from '../../identity/sso/swt-test-token';
import { client } from '../../support/test-app';

/*
 * Credentials that end (issue 40, item 3): extern_person_id (an SWT identity key) is not self-editable,
 * and a manager cannot change a superadmin's password, e-mail, mobile or roles.
 */
let t: TestApp;
let acme: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  // nils (Operations North, managed by kari through Operations) is a superadmin here
  acme = await importDemoTenant(t, 'acme', (doc) => {
    doc.persons.find((p: any) => p.user_name === 'nils').superadmin = true;
  });
});
afterAll(async () => t?.close());

describe('extern_person_id is not self-editable', () => {
  it('self changing their own extern_person_id is a 403 naming it, like role_ids; nothing changes', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const res = await ola.put('/api/persons/ola').send({ person_data: { extern_person_id: 'HR-0001' } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ valid: false, errorcode: 403, message: expect.stringContaining('person_data[extern_person_id]') });
    expect((await ola.get('/api/person')).body.person[0].extern_person_id).toBe('HR-4711');
    // taking over someone's SWT identity this way is what it prevents: a token naming HR-0001 finds nobody
    const token = swtToken(ACME_SWT.secret, { Issuer: ACME_SWT.issuer, ExpiresOn: inAnHour(), external_person_id: 'HR-0001' });
    expect((await client(t, acme.host).get('/api/person').set('Authorization', `SWT ${token}`)).status).toBe(401);
  });

  it('sending the unchanged value, and other own fields, still work; the manager and a superuser may set it', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const same = await ola.put('/api/persons/ola').send({ person_data: { extern_person_id: 'HR-4711', jobtitle: 'Welder' } });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    const kari = await asAcme(t, acme.host, 'kari');
    const byManager = await kari.put('/api/persons/ola').send({ person_data: { extern_person_id: 'HR-4712' } });
    expect(byManager.status, JSON.stringify(byManager.body)).toBe(200);
    const admin = await asAcme(t, acme.host, 'admin');
    expect((await admin.put('/api/persons/ola').send({ person_data: { extern_person_id: 'HR-4711' } })).status).toBe(200);
    // a superuser on themself too (superusers may do everything in the tenant)
    expect((await admin.put('/api/persons/admin').send({ person_data: { extern_person_id: 'HR-0100' } })).status).toBe(200);
  });
});

describe('a manager cannot take over a superadmin', () => {
  it("the manager's PUT of a superadmin's password, e-mail, mobile or roles is a 403 naming what; nothing changes", async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    const cases: [Record<string, unknown>, string][] = [
      [{ person_data: { password: 'Taken-Over-Pass-1' } }, 'password'],
      [{ person_data: { email: 'kari.owns@evil.example' } }, 'e-mail'],
      [{ person_data: { mobile: '+4790009999' } }, 'mobile'],
      [{ role_ids: [] }, 'roles'],
    ];
    for (const [body, what] of cases) {
      const res = await kari.put('/api/persons/nils').send(body);
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.message).toBe(`not authorised to change the ${what} of a superadmin: only superusers may`);
    }
    const del = await kari.delete('/api/persons/nils').send({ role_ids: [1] });
    expect([del.status, del.body.message]).toEqual([403, expect.stringContaining('roles of a superadmin')]);
    expect((await client(t, acme.host).post('/api/login').send({ user_name: 'nils', password: ACME_PASSWORDS.nils, login: 1 })).status).toBe(200);
    const admin = await asAcme(t, acme.host, 'admin');
    expect((await admin.get('/api/persons/nils')).body.persons[0].email).toBe('nils@acme.example');
  });

  it('the manager may still change other fields of a superadmin; a superuser may change everything', async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    expect((await kari.put('/api/persons/nils').send({ person_data: { jobtitle: 'Catalogue lead' } })).status).toBe(200);
    const admin = await asAcme(t, acme.host, 'admin');
    const set = await admin.put('/api/persons/nils').send({ person_data: { mobile: '+4790000077' } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
  });

  it('the manager may still set the password of someone who is no superadmin', async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    expect((await kari.put('/api/persons/ola').send({ person_data: { password: 'Ola-Set-By-Kari-2' } })).status).toBe(200);
  });
});
