import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { idsByRef } from '../../people/persons/demo-refs';

// GET /api/roles/[role_id] — Security: Superuser, superadmin, admin for the role.
let t: TestApp;
let acme: DemoTenant;
let role: Record<string, number>;
type Client = Awaited<ReturnType<typeof asAcme>>;
let admin: Client, kari: Client, ola: Client, per: Client, nils: Client;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme', (doc) => {
    doc.persons.find((p: any) => p.user_name === 'nils').superadmin = true;
    doc.roles.find((r: any) => r.ref === 'welder').admins = ['per'];
  });
  role = await idsByRef(t, acme, 'roles');
  [admin, kari, ola, per, nils] = await Promise.all(['admin', 'kari', 'ola', 'per', 'nils'].map((u) => asAcme(t, acme.host, u)));
});
afterAll(async () => t?.close());

const status = async (c: Client, ref: string) => (await c.get(`/api/roles/${role[ref]}`)).status;

describe('GET /api/roles/[role_id]: superuser, superadmin, admin for the role', () => {
  it('the superuser reads any role with its requirements', async () => {
    const res = await admin.get(`/api/roles/${role.welder}`);
    expect(res.status).toBe(200);
    expect(res.body.roles[0].requirements.map((q: any) => [q.title, q.mandatory])).toEqual([
      ['HSE basic course', true],
      ['Forklift onboarding checklist', true],
      ['Welding certificate (EN ISO 9606)', true],
      ['TIG welding', false],
    ]);
    expect(await status(admin, 'ops-lead')).toBe(200);
  });

  it('nils, a superadmin, reads any role, also ones he neither holds nor administers', async () => {
    expect(await status(nils, 'office')).toBe(200);
    expect(await status(nils, 'ops-lead')).toBe(200);
  });

  it('per, admin of Welder, reads Welder (200) but not Office worker, which he holds (403)', async () => {
    expect(await status(per, 'welder')).toBe(200);
    const office = await per.get(`/api/roles/${role.office}`);
    expect(office.status).toBe(403);
    expect(office.body).toMatchObject({ valid: false, errorcode: 403 });
  });

  it('kari, a manager, gets 403, even for the role she holds', async () => {
    expect(await status(kari, 'welder')).toBe(403);
    expect(await status(kari, 'ops-lead')).toBe(403);
  });

  it('ola, who holds Welder, gets 403', async () => {
    expect(await status(ola, 'welder')).toBe(403);
  });

  it('an unknown role is 404 for the superuser', async () => {
    expect((await admin.get('/api/roles/999999')).status).toBe(404);
  });

  it('the full person view shows superadmin next to superuser', async () => {
    expect((await nils.get('/api/person')).body.person[0]).toMatchObject({ superuser: false, superadmin: true });
    expect((await ola.get('/api/person')).body.person[0]).toMatchObject({ superuser: false, superadmin: false });
  });
});

describe('superadmin where the spec names it ("superuser and superadmin only")', () => {
  it('nils, a superadmin, filters competences by organisation_ids (200); ola gets 403', async () => {
    const org = await idsByRef(t, acme, 'organisations');
    expect((await nils.get(`/api/competences?organisation_ids=${org['acme-ops']}`)).status).toBe(200);
    expect((await ola.get(`/api/competences?organisation_ids=${org['acme-ops']}`)).status).toBe(403);
  });

  it("without user_name and organisation_id nils sees everyone's sign-ons; ola only his own", async () => {
    const all = await nils.get('/api/personevents?mode=all&limit=100');
    expect(all.status).toBe(200);
    expect(new Set(all.body.personevents.map((p: any) => p.user_name))).toEqual(new Set(['nils', 'ola']));
    const own = await ola.get('/api/personevents?mode=all&limit=100');
    expect(own.body.personevents.map((p: any) => p.user_name)).toEqual(['ola']);
  });
});
