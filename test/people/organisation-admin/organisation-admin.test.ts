import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { acmeWithKarisManagers, idsByRef, type AcmeClient } from '../persons/demo-refs';
import { tenantDb } from '../../courses/events/events-support';

let t: TestApp;
let acme: DemoTenant;
let org: Record<string, number>;
let admin: AcmeClient, kari: AcmeClient, globexAdmin: AcmeClient;

beforeAll(async () => {
  t = await createTestApp();
  ({ acme, admin, kari } = await acmeWithKarisManagers(t));
  org = await idsByRef(t, acme, 'organisations');
  const globex = await importDemoTenant(t, 'globex');
  globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
});
afterAll(async () => t?.close());

/** POST /api/organisations as the superuser; answers the new organisation's id. */
async function create(name: string, parentId: number): Promise<number> {
  const res = await admin.post('/api/organisations').send({ organisation_data: { name, parent_id: parentId } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.organisations[0].organisation_id;
}

const put = (as: AcmeClient, id: number, data: Record<string, unknown>) => as.put(`/api/organisations/${id}`).send({ organisation_data: data });

async function auditOf(type: string, subject: string): Promise<any[]> {
  const res = await admin.get(`/api/auditlog?type=${type}&limit=100`);
  return (res.body.auditlog as any[]).filter((e) => e.subject === subject);
}

describe('PUT /api/organisations/[id]', () => {
  it('renames and changes contact fields (only those given), answers the full view and writes organisation.updated', async () => {
    const id = await create('Quality', org.acme);
    const res = await put(admin, id, { name: 'Quality and Safety', email: 'QS@Acme.example', phone: '+47 22 00 00 00' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toBe('organisation updated');
    expect(res.body.organisations[0]).toMatchObject({
      organisation_id: id,
      name: 'Quality and Safety',
      email: 'qs@acme.example',
      phone: '+47 22 00 00 00',
      address: null,
      parent_id: org.acme,
      parent: { organisation_id: org.acme, name: 'Acme Industries' },
      children: [],
    });
    const bracket = await admin.put(`/api/organisations/${id}`).type('form').send('organisation_data[extern_organisation_id]=1300&organisation_data[phone]=');
    expect(bracket.body.organisations[0]).toMatchObject({ extern_organisation_id: '1300', phone: null, name: 'Quality and Safety' });
    const same = await put(admin, id, { name: 'Quality and Safety' });
    expect(same.body.message).toBe('nothing changed');
    const entries = await auditOf('organisation.updated', String(id));
    expect(entries.map((e) => e.details.fields.sort())).toEqual([
      ['extern_organisation_id', 'phone'],
      ['email', 'name', 'phone'],
    ]);
    expect(entries[0].actor).toBe('admin');
  });

  it('validates organisation_data: empty name, unknown keys, a bad e-mail (420)', async () => {
    const id = await create('Validation', org.acme);
    for (const [data, param] of [
      [{ name: '' }, 'organisation_data[name]'],
      [{ colour: 'red' }, 'organisation_data'],
      [{ email: 'not-an-address' }, 'organisation_data[email]'],
      [{ parent_id: -2 }, 'organisation_data[parent_id]'],
    ] as const) {
      const res = await put(admin, id, data);
      expect(res.body, JSON.stringify(data)).toMatchObject({ valid: false, errorcode: 420 });
      expect(res.body.message).toContain(param);
    }
    expect((await put(admin, 999999, { name: 'X' })).body.errorcode).toBe(404);
  });

  it('moves a subtree: the sub-organisations come along, the managers above the new place manage it at once', async () => {
    const east = await create('Operations East', org['acme-ops']);
    const team = await create('East team', east);
    const moved = await put(admin, east, { parent_id: org['acme-hr'] });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.organisations[0]).toMatchObject({ parent_id: org['acme-hr'], children: [{ organisation_id: team, name: 'East team' }] });
    expect((await admin.get(`/api/organisations/${team}`)).body.organisations[0].parent_id).toBe(east);
    // kari manages Operations: the moved subtree is no longer hers, on her very next request
    expect((await kari.get(`/api/organisations/${team}`)).body.errorcode).toBe(403);
    expect((await kari.get('/api/organisations')).body.organisations.map((o: any) => o.name)).not.toContain('East team');
    const back = await put(admin, east, { parent_id: org['acme-ops'] });
    expect(back.status).toBe(200);
    expect((await kari.get(`/api/organisations/${team}`)).status).toBe(200);
    const [entry] = await auditOf('organisation.updated', String(east));
    expect(entry.details).toMatchObject({ fields: ['parent_id'], from_parent_id: org['acme-hr'], to_parent_id: org['acme-ops'] });

    // parent_id 0 makes a root (superusers only)
    const root = await put(admin, team, { parent_id: 0 });
    expect(root.body.organisations[0]).toMatchObject({ parent_id: 0, parent: null });
    expect((await put(admin, team, { parent_id: east })).status).toBe(200);
  });

  it('a move under itself or its own subtree, or under an unknown organisation, is a 420 naming organisation_data[parent_id]', async () => {
    const top = await create('Cycle top', org.acme);
    const mid = await create('Cycle middle', top);
    const low = await create('Cycle low', mid);
    for (const to of [top, mid, low, 999999]) {
      const res = await put(admin, top, { parent_id: to });
      expect(res.body, `under ${to}`).toMatchObject({ valid: false, errorcode: 420, parameter: 'organisation_data[parent_id]' });
    }
    expect((await put(admin, top, { parent_id: low })).body.message).toContain('would make a cycle');
    expect((await admin.get(`/api/organisations/${top}`)).body.organisations[0].parent_id).toBe(org.acme);
  });

  it('a manager changes only organisations strictly below the one they manage, and moves only within it (403)', async () => {
    const north = org['acme-ops-north'];
    // her own organisation, the one above, a sibling subtree: 403
    for (const id of [org['acme-ops'], org.acme, org['acme-hr']]) {
      const res = await put(kari, id, { name: 'Mine now' });
      expect(res.body, String(id)).toMatchObject({ valid: false, errorcode: 403 });
    }
    expect((await put(kari, org['acme-ops'], { name: 'x' })).body.message).toContain(
      'a manager never changes the organisation they are assigned to manage itself',
    );
    // below it: allowed
    const renamed = await put(kari, north, { name: 'Operations North (Tromsø)' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    // a move out of what she manages, or to a root: 403; within it: 200
    expect((await put(kari, north, { parent_id: org['acme-hr'] })).body.errorcode).toBe(403);
    expect((await put(kari, north, { parent_id: 0 })).body.errorcode).toBe(403);
    expect((await put(kari, org['acme-ops-south'], { parent_id: north })).status).toBe(200);
    expect((await put(kari, org['acme-ops-south'], { parent_id: org['acme-ops'] })).status).toBe(200);
    expect((await put(kari, north, { name: 'Operations North' })).status).toBe(200);
    expect((await admin.get(`/api/organisations/${north}`)).body.organisations[0]).toMatchObject({ name: 'Operations North', parent_id: org['acme-ops'] });
  });

  it("another tenant's organisation is a 404", async () => {
    // globex has two organisations: acme's later ids name nothing there
    const id = await create('Acme only', org.acme);
    expect((await put(globexAdmin, id, { name: 'Taken' })).body.errorcode).toBe(404);
    expect((await globexAdmin.delete(`/api/organisations/${id}`)).body.errorcode).toBe(404);
    expect((await admin.get(`/api/organisations/${id}`)).body.organisations[0].name).toBe('Acme only');
  });

  it('an Idempotency-Key replay of a PUT answers the first answer and writes one audit entry', async () => {
    const id = await create('Replayed', org.acme);
    const first = await admin
      .put(`/api/organisations/${id}`)
      .set('Idempotency-Key', 'org-rename-1')
      .send({ organisation_data: { name: 'Replayed once' } });
    expect(first.status).toBe(200);
    const again = await admin
      .put(`/api/organisations/${id}`)
      .set('Idempotency-Key', 'org-rename-1')
      .send({ organisation_data: { name: 'Replayed once' } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await auditOf('organisation.updated', String(id))).toHaveLength(1);
  });
});

describe('DELETE /api/organisations/[id]', () => {
  it('deletes an empty organisation (its manager assignments end with it, audited)', async () => {
    const id = await create('Short-lived', org['acme-hr']);
    expect((await admin.put(`/api/organisations/${id}/managers`).send({ user_name: 'per' })).status).toBe(200);
    const res = await admin.delete(`/api/organisations/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      message: `organisation ${id} deleted`,
      organisations: [{ organisation_id: id, name: 'Short-lived', parent_id: org['acme-hr'] }],
    });
    expect((await admin.get(`/api/organisations/${id}`)).body.errorcode).toBe(404);
    const [deleted] = await auditOf('organisation.deleted', String(id));
    expect(deleted.details).toEqual({ name: 'Short-lived', parent_id: org['acme-hr'], managers: ['per'] });
    const removed = (await auditOf('manager.removed', 'per')).filter((e) => e.details.organisation_id === id);
    expect(removed.map((e) => e.details)).toEqual([{ organisation_id: id, organisation: 'Short-lived', organisation_deleted: true }]);
  });

  it('refuses an organisation that holds anything (409 naming it): members, sub-organisations, hosted events, restricted competences', async () => {
    const withSub = await create('Has a child', org.acme);
    await create('The child', withSub);
    const r1 = await admin.delete(`/api/organisations/${withSub}`);
    expect(r1.body).toMatchObject({ valid: false, errorcode: 409 });
    expect(r1.body.message).toContain('it holds 1 sub-organisation(s)');

    const hr = await admin.delete(`/api/organisations/${org['acme-hr']}`);
    expect(hr.body.errorcode).toBe(409);
    expect(hr.body.message).toMatch(/it holds \d+ person\(s\)/);

    // Acme Industries: persons, sub-organisations and the events it hosts
    const acmeRoot = await admin.delete(`/api/organisations/${org.acme}`);
    expect(acmeRoot.body.errorcode).toBe(409);
    expect(acmeRoot.body.message).toContain('sub-organisation(s)');
    expect(acmeRoot.body.message).toContain('event(s) hosted by it');

    const restricted = await create('Restricts a competence', org.acme);
    const db = tenantDb(t, acme);
    const competence = (await db.table('competences').first('id')).id;
    await db.table('competence_organisations').insert({ competence_id: competence, organisation_id: restricted });
    const r2 = await admin.delete(`/api/organisations/${restricted}`);
    expect(r2.body.errorcode).toBe(409);
    expect(r2.body.message).toContain('1 competence(s) restricted to it');
    await db.table('competence_organisations').where({ organisation_id: restricted }).delete();
    expect((await admin.delete(`/api/organisations/${restricted}`)).status).toBe(200);
  });

  it('a manager deletes only below what they manage (403 for their own)', async () => {
    const empty = await create('Ops scratch', org['acme-ops']);
    expect((await kari.delete(`/api/organisations/${org['acme-ops']}`)).body.errorcode).toBe(403);
    expect((await kari.delete(`/api/organisations/${org['acme-hr']}`)).body.errorcode).toBe(403);
    expect((await kari.delete(`/api/organisations/${empty}`)).status).toBe(200);
  });

  it('an Idempotency-Key replay of a DELETE answers the first answer (not a 404)', async () => {
    const id = await create('Delete me once', org.acme);
    const first = await admin.delete(`/api/organisations/${id}`).set('Idempotency-Key', 'org-delete-1');
    const again = await admin.delete(`/api/organisations/${id}`).set('Idempotency-Key', 'org-delete-1');
    expect(first.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await auditOf('organisation.deleted', String(id))).toHaveLength(1);
  });
});
