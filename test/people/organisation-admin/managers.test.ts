import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { acmeWithKarisManagers, idsByRef, userNames, type AcmeClient } from '../persons/demo-refs';
import { tenantDb } from '../../courses/events/events-support';
import { cachesSettled } from '../../support/cache-settle';
import { KNEX } from '../../../src/platform/tokens';
import { PrincipalCache } from '../../../src/platform/auth/principal-cache';

let t: TestApp;
let acme: DemoTenant;
let org: Record<string, number>;
let admin: AcmeClient, kari: AcmeClient, boss: AcmeClient, per: AcmeClient, ola: AcmeClient, globexAdmin: AcmeClient;

beforeAll(async () => {
  t = await createTestApp();
  ({ acme, admin, kari, boss } = await acmeWithKarisManagers(t));
  org = await idsByRef(t, acme, 'organisations');
  [per, ola] = await Promise.all([asAcme(t, acme.host, 'per'), asAcme(t, acme.host, 'ola')]);
  const globex = await importDemoTenant(t, 'globex');
  globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
});
afterAll(async () => t?.close());

/** An acme organisation whose id names nothing in globex (which has two organisations). */
const acmeOnly = () => Math.max(...Object.values(org));
const managersPath = (id: number) => `/api/organisations/${id}/managers`;
const managerNames = (body: { managers: { user_name: string }[] }) => body.managers.map((m) => m.user_name);

async function auditOf(type: string, subject: string): Promise<any[]> {
  const res = await admin.get(`/api/auditlog?type=${type}&user_name=${subject}&limit=100`);
  return (res.body.auditlog as any[]).filter((e) => e.type === type && e.subject === subject);
}

describe('GET /api/organisations/[id]/managers', () => {
  it('lists the managers assigned to the organisation itself as Person simple views', async () => {
    const res = await admin.get(managersPath(org['acme-ops']));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(managerNames(res.body)).toEqual(['kari', 'vera']);
    expect(Object.keys(res.body.managers[0]).sort()).toEqual([
      'email',
      'employee_code',
      'firstname',
      'jobtitle',
      'lastname',
      'mobile',
      'organisation_id',
      'person_id',
      'user_name',
    ]);
    expect(res.body.managers[0]).toMatchObject({ user_name: 'kari', firstname: 'Kari', organisation_id: org['acme-ops'] });
    // boss manages Acme (above): not listed for Operations
    expect(managerNames((await admin.get(managersPath(org.acme))).body)).toEqual(['boss']);
    expect(managerNames((await kari.get(managersPath(org['acme-ops-north']))).body)).toEqual([]);
    expect((await kari.get(managersPath(org['acme-ops']))).status).toBe(200);
    expect((await kari.get(managersPath(org['acme-hr']))).body.errorcode).toBe(403);
    expect((await ola.get(managersPath(org['acme-ops-north']))).body.errorcode).toBe(403);
    expect((await admin.get(managersPath(999999))).body.errorcode).toBe(404);
    // globex has two organisations: acme's later ids name nothing there
    expect((await globexAdmin.get(managersPath(acmeOnly()))).body.errorcode).toBe(404);
  });
});

describe('PUT and DELETE /api/organisations/[id]/managers', () => {
  it("a manager added over the API lists the organisation's persons on their very next request, and loses it on removal", async () => {
    const north = org['acme-ops-north'];
    // per is logged in and has been seen (his principal is cached in this process) before he becomes a manager
    expect((await per.get('/api/person')).status).toBe(200);
    expect((await per.get(`/api/organisations/${north}/persons`)).body.errorcode).toBe(403);
    expect((await per.get(`/api/persons?organisation_id=${north}`)).body.errorcode).toBe(403);

    const added = await admin.put(managersPath(north)).send({ user_name: 'per' });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.message).toBe(`per now manages organisation ${north}`);
    expect(managerNames(added.body)).toEqual(['per']);

    const members = await per.get(`/api/organisations/${north}/persons`);
    expect(members.status, JSON.stringify(members.body)).toBe(200);
    expect(userNames(members.body).sort()).toEqual(['nils', 'ola']);
    expect(userNames((await per.get(`/api/persons?organisation_id=${north}`)).body).sort()).toEqual(['nils', 'ola']);
    expect((await per.get(`/api/organisations/${north}`)).status).toBe(200);

    const again = await admin.put(managersPath(north)).send({ user_name: 'per' });
    expect(again.body.message).toBe(`per already manages organisation ${north}; nothing changed`);

    const removed = await admin.delete(managersPath(north)).send({ user_name: 'per' });
    expect(removed.status).toBe(200);
    expect(removed.body.message).toBe(`per no longer manages organisation ${north}`);
    expect(managerNames(removed.body)).toEqual([]);
    expect((await per.get(`/api/organisations/${north}/persons`)).body.errorcode).toBe(403);
    expect((await per.get(`/api/persons?organisation_id=${north}`)).body.errorcode).toBe(403);
    expect((await admin.delete(`${managersPath(north)}?user_name=per`)).body.message).toBe(`per does not manage organisation ${north}; nothing changed`);

    const addedEntries = await auditOf('manager.added', 'per');
    expect(addedEntries.map((e) => e.details)).toEqual([{ organisation_id: north, organisation: 'Operations North' }]);
    expect(addedEntries[0].actor).toBe('admin');
    expect((await auditOf('manager.removed', 'per')).map((e) => e.details)).toEqual([{ organisation_id: north, organisation: 'Operations North' }]);
  });

  it('a manager row written by another path (no API write in this process) reaches the cached reads through tenant_data_changed', async () => {
    const south = org['acme-ops-south'];
    const db = tenantDb(t, acme);
    const perId = (await db.table('persons').where({ user_name: 'per' }).first('id')).id;
    await cachesSettled(t, t.container.resolve(KNEX), acme.schema);
    expect((await per.get(`/api/persons?organisation_id=${south}`)).body.errorcode).toBe(403);
    const version = t.container.resolve(PrincipalCache).dataVersion(acme.schema);
    await db.table('organisation_managers').insert({ person_id: perId, organisation_id: south });
    await expect.poll(() => t.container.resolve(PrincipalCache).dataVersion(acme.schema), { timeout: 5000 }).not.toBe(version);
    expect(userNames((await per.get(`/api/persons?organisation_id=${south}`)).body)).toEqual(['siri']);
    // and a cached list goes when the row does
    const before = t.container.resolve(PrincipalCache).dataVersion(acme.schema);
    await db.table('organisation_managers').where({ person_id: perId, organisation_id: south }).delete();
    await expect.poll(() => t.container.resolve(PrincipalCache).dataVersion(acme.schema), { timeout: 5000 }).not.toBe(before);
    expect((await per.get(`/api/persons?organisation_id=${south}`)).body.errorcode).toBe(403);
  });

  it('a manager appoints and removes managers only strictly below what they manage, never themself nor their own manager (403)', async () => {
    const north = org['acme-ops-north'];
    // the organisation she manages itself, one above, a sibling subtree
    expect((await kari.put(managersPath(org['acme-ops'])).send({ user_name: 'ola' })).body.errorcode).toBe(403);
    expect((await kari.put(managersPath(org.acme)).send({ user_name: 'kari' })).body.errorcode).toBe(403);
    expect((await kari.put(managersPath(org['acme-hr'])).send({ user_name: 'ola' })).body.errorcode).toBe(403);
    expect((await kari.delete(managersPath(org['acme-ops'])).send({ user_name: 'vera' })).body.errorcode).toBe(403);
    // herself below her own, a person outside what she manages, her own manager
    const self = await kari.put(managersPath(north)).send({ user_name: 'kari' });
    expect(self.body).toMatchObject({ valid: false, errorcode: 403 });
    expect(self.body.message).toContain('make yourself a manager');
    expect((await kari.put(managersPath(north)).send({ user_name: 'per' })).body.errorcode).toBe(403);
    expect((await kari.put(managersPath(north)).send({ user_name: 'boss' })).body.errorcode).toBe(403);
    expect((await kari.put(managersPath(north)).send({ user_name: 'nobody' })).body.errorcode).toBe(404);
    expect((await kari.put(managersPath(north)).send({})).body).toMatchObject({ errorcode: 419, parameter: 'user_name' });

    // a person she manages, below her own organisation: allowed, and ola's rights follow at once
    expect((await ola.get(`/api/organisations/${north}/persons`)).body.errorcode).toBe(403);
    const added = await kari.put(managersPath(north)).send({ user_name: 'ola' });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(userNames((await ola.get(`/api/organisations/${north}/persons`)).body).sort()).toEqual(['nils', 'ola']);
    expect((await kari.delete(managersPath(north)).send({ user_name: 'ola' })).status).toBe(200);
    expect((await ola.get(`/api/organisations/${north}/persons`)).body.errorcode).toBe(403);

    // boss (who manages kari) assigned to North by the superuser: kari may not remove him
    expect((await admin.put(managersPath(north)).send({ user_name: 'boss' })).status).toBe(200);
    const bossOut = await kari.delete(managersPath(north)).send({ user_name: 'boss' });
    expect(bossOut.body).toMatchObject({ valid: false, errorcode: 403 });
    expect(bossOut.body.message).toContain('they manage you');
    expect((await boss.delete(managersPath(north)).send({ user_name: 'boss' })).status).toBe(200);
  });

  it("a superuser may make anyone a manager anywhere, themself too; another tenant's organisation is a 404", async () => {
    expect((await admin.put(managersPath(org.acme)).send({ user_name: 'admin' })).status).toBe(200);
    expect((await admin.delete(managersPath(org.acme)).send({ user_name: 'admin' })).status).toBe(200);
    expect((await globexAdmin.put(managersPath(acmeOnly())).send({ user_name: 'admin' })).body.errorcode).toBe(404);
    expect((await globexAdmin.delete(managersPath(acmeOnly())).send({ user_name: 'admin' })).body.errorcode).toBe(404);
    expect(managerNames((await admin.get(managersPath(org['acme-ops']))).body)).toEqual(['kari', 'vera']);
  });

  it('an Idempotency-Key replay of an appointment answers the first answer and writes one audit entry', async () => {
    const hr = org['acme-hr'];
    const first = await admin.put(managersPath(hr)).set('Idempotency-Key', 'appoint-expired').send({ user_name: 'expired' });
    expect(first.status).toBe(200);
    const again = await admin.put(managersPath(hr)).set('Idempotency-Key', 'appoint-expired').send({ user_name: 'expired' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await auditOf('manager.added', 'expired')).toHaveLength(1);
  });
});

describe('appointing a deactivated person', () => {
  it('is a 409 until they are reactivated', async () => {
    const north = org['acme-ops-north'];
    expect((await admin.put('/api/persons/ola/deactivate')).status).toBe(200);
    const refused = await admin.put(managersPath(north)).send({ user_name: 'ola' });
    expect(refused.body).toMatchObject({ valid: false, errorcode: 409, message: expect.stringContaining('ola is deactivated') });
    expect(managerNames((await admin.get(managersPath(north))).body)).not.toContain('ola');
    expect((await admin.put('/api/persons/ola/reactivate')).status).toBe(200);
    expect((await admin.put(managersPath(north)).send({ user_name: 'ola' })).status).toBe(200);
    expect((await admin.delete(managersPath(north)).send({ user_name: 'ola' })).status).toBe(200);
  });
});
