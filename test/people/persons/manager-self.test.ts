import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type DemoTenant, type TestApp } from '../../support/test-app';
import { loginCookie } from '../../support/login';
import { acmeWithKarisManagers, BOSS_PASSWORD, idsByRef, type AcmeClient } from './demo-refs';

// A manager never acts as their own manager: not on themself, nor on a person who manages them.
let t: TestApp;
let acme: DemoTenant;
let role: Record<string, number>;
let admin: AcmeClient, kari: AcmeClient, boss: AcmeClient, vera: AcmeClient;

beforeAll(async () => {
  t = await createTestApp();
  ({ acme, admin, kari, boss, vera } = await acmeWithKarisManagers(t));
  role = await idsByRef(t, acme, 'roles');
});
afterAll(async () => t?.close());

const roleNames = async (userName: string) => (await admin.get(`/api/persons/${userName}`)).body.persons[0].roles.map((r: any) => r.name).sort();

describe('PUT /api/persons/[user_name] role_ids', () => {
  it('kari, manager of her own organisation, cannot give herself roles (403); boss, her manager, can (200)', async () => {
    const self = await kari.put('/api/persons/kari').send({ role_ids: [role['ops-lead'], role['safety-rep']] });
    expect(self.status).toBe(403);
    expect(self.body).toMatchObject({ valid: false, errorcode: 403 });
    expect(await roleNames('kari')).toEqual(['Operations lead']);
    const byBoss = await boss.put('/api/persons/kari').send({ role_ids: [role['ops-lead'], role['safety-rep']] });
    expect(byBoss.status, JSON.stringify(byBoss.body)).toBe(200);
    expect(await roleNames('kari')).toEqual(['Operations lead', 'Safety representative']);
  });

  it("kari still updates her own profile (self) and ola's roles (her report)", async () => {
    expect((await kari.put('/api/persons/kari').send({ person_data: { city: 'Oslo' } })).status).toBe(200);
    expect((await kari.put('/api/persons/ola').send({ role_ids: [role.welder] })).status).toBe(200);
  });
});

describe('DELETE /api/persons/[user_name] role_ids', () => {
  it('kari cannot remove her own roles (403); the superuser can (200)', async () => {
    await admin.put('/api/persons/kari').send({ role_ids: [role['ops-lead'], role.office] });
    expect((await kari.delete(`/api/persons/kari?role_ids=${role.office}`)).status).toBe(403);
    expect(await roleNames('kari')).toEqual(['Office worker', 'Operations lead']);
    expect((await admin.delete(`/api/persons/kari?role_ids=${role.office}`)).status).toBe(200);
    expect(await roleNames('kari')).toEqual(['Operations lead']);
  });

  it("kari cannot remove roles of boss, who manages her (403); boss can remove kari's (200)", async () => {
    expect((await kari.delete(`/api/persons/boss?role_ids=${role['ops-lead']}`)).status).toBe(403);
    expect(await roleNames('boss')).toEqual(['Operations lead']);
    await admin.put('/api/persons/kari').send({ role_ids: [role['ops-lead'], role.office] });
    expect((await boss.delete(`/api/persons/kari?role_ids=${role.office}`)).status).toBe(200);
  });
});

describe('passwords of managers above', () => {
  it('kari cannot reset the password of boss, who sits in Operations but manages the company (403)', async () => {
    const res = await kari.put('/api/persons/boss').send({ person_data: { password: 'Taken-Over-Pass-1' } });
    expect(res.status).toBe(403);
    await loginCookie(t, acme.host, 'boss', BOSS_PASSWORD);
    expect((await kari.put('/api/persons/boss').send({ person_data: { city: 'Bergen' } })).status).toBe(403);
    expect((await kari.put('/api/persons/boss').send({ role_ids: [] })).status).toBe(403);
    // reading stays "person's manager": boss sits in Operations
    expect((await kari.get('/api/persons/boss')).status).toBe(200);
  });

  it("co-managers of Operations cannot reset each other's passwords (403 both ways)", async () => {
    expect((await kari.put('/api/persons/vera').send({ person_data: { password: 'Taken-Over-Pass-1' } })).status).toBe(403);
    expect((await vera.put('/api/persons/kari').send({ person_data: { password: 'Taken-Over-Pass-1' } })).status).toBe(403);
  });

  it("kari's own password needs old_password even though she manages her organisation (419)", async () => {
    const res = await kari.put('/api/persons/kari').send({ person_data: { password: 'Kari-New-Pass-22' }, password_match: 'Kari-New-Pass-22' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ valid: false, errorcode: 419 });
    expect(res.body.message).toContain('old_password');
  });

  it("boss resets kari's password (200): the manager above may", async () => {
    const res = await boss.put('/api/persons/kari').send({ person_data: { password: 'Kari-Reset-Pass-2' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.persons[0].must_change_password).toBe('changed_by_other');
  });
});
