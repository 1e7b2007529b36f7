import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { form, idsByRef, userNames } from '../persons/demo-refs';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let org: Record<string, number>;
type Client = Awaited<ReturnType<typeof asAcme>>;
let admin: Client, kari: Client, ola: Client, per: Client, globexAdmin: Client;

const names = (body: { organisations: { name: string }[] }) => body.organisations.map((o) => o.name);

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  org = await idsByRef(t, acme, 'organisations');
  [admin, kari, ola, per] = await Promise.all([
    asAcme(t, acme.host, 'admin'),
    asAcme(t, acme.host, 'kari'),
    asAcme(t, acme.host, 'ola'),
    asAcme(t, acme.host, 'per'),
  ]);
  globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
});
afterAll(async () => t?.close());

describe('GET /api/organisations', () => {
  it('refuses anonymous callers (401) and persons who manage nothing (403)', async () => {
    expect((await client(t, acme.host).get('/api/organisations')).status).toBe(401);
    expect((await ola.get('/api/organisations')).body).toMatchObject({ valid: false, errorcode: 403 });
    expect((await per.get('/api/organisations?parent_id=0')).status).toBe(403);
  });

  it('shows the superuser the whole tree, by name, with parent_id 0 for the root', async () => {
    const res = await admin.get('/api/organisations');
    expect(names(res.body)).toEqual(['Acme Industries', 'Human Resources', 'Operations', 'Operations North', 'Operations South']);
    expect(res.body.organisations[0]).toEqual({ organisation_id: org.acme, name: 'Acme Industries', parent_id: 0, extern_organisation_id: '1000' });
    expect(names((await admin.get('/api/organisations?parent_id=0')).body)).toEqual(['Acme Industries']);
    expect(names((await admin.get(`/api/organisations?parent_id=${org.acme}`)).body)).toEqual(['Human Resources', 'Operations']);
    expect(names((await admin.get('/api/organisations?limit=2&offset=1')).body)).toEqual(['Human Resources', 'Operations']);
  });

  it('shows kari only the subtree she manages; her roots are its top', async () => {
    expect(names((await kari.get('/api/organisations')).body)).toEqual(['Operations', 'Operations North', 'Operations South']);
    expect(names((await kari.get('/api/organisations?parent_id=0')).body)).toEqual(['Operations']);
    expect(names((await kari.get(`/api/organisations?parent_id=${org.acme}`)).body)).toEqual(['Operations']);
  });

  it('user_name gives the organisation the person belongs to, within what the caller may see', async () => {
    expect(names((await admin.get('/api/organisations?user_name=ola')).body)).toEqual(['Operations North']);
    expect(names((await kari.get('/api/organisations?user_name=ola')).body)).toEqual(['Operations North']);
    expect(names((await kari.get('/api/organisations?user_name=per')).body)).toEqual([]);
    expect((await admin.get('/api/organisations?user_name=nobody')).body.errorcode).toBe(404);
  });

  it('answers 404 for an unknown parent and 420 for a malformed one', async () => {
    expect((await admin.get('/api/organisations?parent_id=99999')).body.errorcode).toBe(404);
    expect((await admin.get('/api/organisations?parent_id=-1')).body).toMatchObject({ errorcode: 420, parameter: 'parent_id' });
    expect((await admin.get('/api/organisations?limit=0')).body).toMatchObject({ errorcode: 420, parameter: 'limit' });
  });

  it('globex sees only its own organisations', async () => {
    expect(names((await globexAdmin.get('/api/organisations')).body)).toEqual(['Cypress Creek plant', 'Globex Corporation']);
  });
});

describe('GET /api/organisations/[id]', () => {
  it('gives the superuser the full view with parent and children', async () => {
    const res = await admin.get(`/api/organisations/${org['acme-ops']}`);
    expect(res.body.organisations).toHaveLength(1);
    expect(res.body.organisations[0]).toMatchObject({
      organisation_id: org['acme-ops'],
      name: 'Operations',
      parent_id: org.acme,
      extern_organisation_id: '1100',
      parent: { organisation_id: org.acme, name: 'Acme Industries' },
      children: [
        { organisation_id: org['acme-ops-north'], name: 'Operations North' },
        { organisation_id: org['acme-ops-south'], name: 'Operations South' },
      ],
    });
    expect((await admin.get(`/api/organisations/${org.acme}?fields=name,email,address`)).body.organisations).toEqual([
      { name: 'Acme Industries', email: 'post@acme.example', address: 'Storgata 1' },
    ]);
  });

  it('lets kari see what she manages and nothing else (403)', async () => {
    expect((await kari.get(`/api/organisations/${org['acme-ops-north']}`)).body.organisations[0].name).toBe('Operations North');
    expect((await kari.get(`/api/organisations/${org['acme-hr']}`)).body).toMatchObject({ valid: false, errorcode: 403 });
    expect((await kari.get(`/api/organisations/${org.acme}`)).status).toBe(403);
    expect((await ola.get(`/api/organisations/${org['acme-ops-north']}`)).status).toBe(403);
  });

  it('answers 401 anonymous, 404 unknown, 404 for acme ids on globex', async () => {
    expect((await client(t, acme.host).get(`/api/organisations/${org.acme}`)).status).toBe(401);
    expect((await admin.get('/api/organisations/99999')).body.errorcode).toBe(404);
    expect((await globexAdmin.get(`/api/organisations/${org['acme-hr']}`)).status).toBe(404);
  });
});

describe('GET /api/organisations/[id]/persons', () => {
  it('lists the members like GET /api/persons with organisation_id', async () => {
    expect(userNames((await kari.get(`/api/organisations/${org['acme-ops-north']}/persons`)).body)).toEqual(['nils', 'ola']);
    expect(userNames((await admin.get(`/api/organisations/${org['acme-ops']}/persons?recursive=1&limit=2`)).body)).toEqual(['siri', 'nils']);
    const same = await admin.get(`/api/persons?organisation_id=${org['acme-hr']}`);
    expect((await admin.get(`/api/organisations/${org['acme-hr']}/persons`)).body).toEqual(same.body);
  });

  it('answers 401 anonymous, 403 to a non-manager, 404 for acme ids on globex', async () => {
    expect((await client(t, acme.host).get(`/api/organisations/${org['acme-hr']}/persons`)).status).toBe(401);
    expect((await kari.get(`/api/organisations/${org['acme-hr']}/persons`)).body.errorcode).toBe(403);
    expect((await ola.get(`/api/organisations/${org['acme-ops-north']}/persons`)).status).toBe(403);
    expect((await globexAdmin.get(`/api/organisations/${org['acme-hr']}/persons`)).status).toBe(404);
  });
});

describe('POST /api/organisations', () => {
  it('lets the superuser create a root (parent_id 0 or absent) and sub-organisations', async () => {
    const root = await admin
      .post('/api/organisations')
      .type('form')
      .send(form({ 'organisation_data[name]': 'Acme Labs', 'organisation_data[parent_id]': 0, 'organisation_data[email]': 'labs@acme.example' }));
    expect(root.body).toMatchObject({ valid: true, message: 'organisation created' });
    expect(root.body.organisations[0]).toMatchObject({ name: 'Acme Labs', parent_id: 0, email: 'labs@acme.example', parent: null, children: [] });
    const noParent = await admin.post('/api/organisations').send({ organisation_data: { name: 'Acme Ventures' } });
    expect(noParent.body.organisations[0].parent_id).toBe(0);
    const sub = await admin
      .post('/api/organisations')
      .send({ organisation_data: { name: 'Payroll', parent_id: org['acme-hr'], extern_organisation_id: 1210, address: 'Storgata 1' } });
    expect(sub.body.organisations[0]).toMatchObject({
      name: 'Payroll',
      parent_id: org['acme-hr'],
      extern_organisation_id: '1210',
      parent: { name: 'Human Resources' },
    });
  });

  it('lets kari create below what she manages, and then see it', async () => {
    const res = await kari.post('/api/organisations').send({ organisation_data: { name: 'Operations North Night Shift', parent_id: org['acme-ops-north'] } });
    expect(res.body.organisations[0]).toMatchObject({ name: 'Operations North Night Shift', parent_id: org['acme-ops-north'] });
    expect(names((await kari.get(`/api/organisations?parent_id=${org['acme-ops-north']}`)).body)).toEqual(['Operations North Night Shift']);
  });

  it('refuses kari elsewhere and at the root, and non-managers (403)', async () => {
    expect((await kari.post('/api/organisations').send({ organisation_data: { name: 'X', parent_id: org['acme-hr'] } })).body).toMatchObject({
      valid: false,
      errorcode: 403,
    });
    expect((await kari.post('/api/organisations').send({ organisation_data: { name: 'X' } })).status).toBe(403);
    expect((await ola.post('/api/organisations').send({ organisation_data: { name: 'X', parent_id: org['acme-ops-north'] } })).status).toBe(403);
  });

  it('answers 401 anonymous, 404 for unknown or foreign parents, 419/420 for bad data', async () => {
    expect(
      (
        await client(t, acme.host)
          .post('/api/organisations')
          .send({ organisation_data: { name: 'X' } })
      ).status,
    ).toBe(401);
    expect((await admin.post('/api/organisations').send({ organisation_data: { name: 'X', parent_id: 99999 } })).body.errorcode).toBe(404);
    expect((await globexAdmin.post('/api/organisations').send({ organisation_data: { name: 'X', parent_id: org['acme-hr'] } })).status).toBe(404);
    expect((await admin.post('/api/organisations').send({ organisation_data: { email: 'a@b.example' } })).body).toMatchObject({
      errorcode: 419,
      parameter: 'organisation_data[name]',
    });
    expect((await admin.post('/api/organisations').send({})).body).toMatchObject({ errorcode: 419, parameter: 'organisation_data' });
    expect((await admin.post('/api/organisations').send({ organisation_data: { name: 'X', email: 'nope' } })).body).toMatchObject({
      errorcode: 420,
      parameter: 'organisation_data[email]',
    });
  });
});
