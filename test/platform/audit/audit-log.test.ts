import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { ACME_PASSWORDS, asAcme } from '../../support/login';
import { idsByRef } from '../../people/persons/demo-refs';
import { KNEX } from '../../../src/platform/tokens';
import { TenantAdminService } from '../../../src/tenancy/tenants/tenant-admin.service';
import { operator } from '../../tenancy/tenants/archive-support';

const TOKEN = 'operator-token-0123456789abcdef';
let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
type Client = Awaited<ReturnType<typeof asAcme>>;
let admin: Client;

beforeAll(async () => {
  t = await createTestApp({ PLATFORM_ADMIN_TOKEN: TOKEN });
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  admin = await asAcme(t, acme.host, 'admin');
});
afterAll(async () => t?.close());

const log = async (query = '') => {
  const res = await admin.get(`/api/auditlog${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.auditlog as { audit_id: number; at: string; type: string; actor: string; subject: string | null; ip: string | null; details: any }[];
};

describe('GET /api/auditlog', () => {
  it('is in the OpenAPI document with its filters and the entry shape', async () => {
    const doc = (await request(t.app).get('/api/openapi.json').set('Host', acme.host)).body;
    const op = doc.paths['/api/auditlog'].get;
    expect(op.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['type', 'user_name', 'startdate', 'enddate', 'limit', 'offset']));
    expect(JSON.stringify(op.responses['200'])).toContain('#/components/schemas/AuditLogEntry');
    expect(Object.keys(doc.components.schemas.AuditLogEntry.properties)).toContain('audit_id');
  });

  it('is for superusers only: 401 anonymous, 403 for a manager', async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    const res = await kari.get('/api/auditlog');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ valid: false, errorcode: 403 });
    expect((await request(t.app).get('/api/auditlog').set('Host', acme.host)).status).toBe(401);
  });

  it('records a password change by the person themself, without the password', async () => {
    const siri = await asAcme(t, acme.host, 'siri');
    const r = await siri
      .put('/api/persons/siri')
      .send({ person_data: { password: 'Siri-New-Pass-2' }, old_password: ACME_PASSWORDS.siri, password_match: 'Siri-New-Pass-2' });
    expect(r.status).toBe(200);
    const [entry] = await log('?type=password.changed&user_name=siri');
    expect(entry).toMatchObject({ type: 'password.changed', actor: 'siri', subject: 'siri', details: { by: 'self' } });
    expect(entry.ip).toBeTruthy();
    expect(JSON.stringify(entry)).not.toContain('Siri-New-Pass-2');
    expect(JSON.stringify(entry)).not.toContain(ACME_PASSWORDS.siri);
  });

  it('records a password set by a manager as password.reset and an e-mail change', async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    expect((await kari.put('/api/persons/nils').send({ person_data: { password: 'Set-By-Kari-1', email: 'nils2@acme.example' } })).status).toBe(200);
    const entries = await log('?user_name=nils');
    expect(entries.map((e) => [e.type, e.actor, e.subject])).toEqual(
      expect.arrayContaining([
        ['password.reset', 'kari', 'nils'],
        ['email.changed', 'kari', 'nils'],
      ]),
    );
    expect(JSON.stringify(entries)).not.toContain('Set-By-Kari-1');
  });

  it('records a forgot_password reset as password.reset by anonymous', async () => {
    const res = await request(t.app).post('/api/forgot_password').set('Host', acme.host).send({ identification: 'per' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [entry] = await log('?type=password.reset&user_name=per');
    expect(entry).toMatchObject({ actor: 'anonymous', subject: 'per', details: { reason: 'forgot_password', medium: 'sms' } });
  });

  it('records role changes from PUT and DELETE /api/persons with what was added and removed', async () => {
    const role = await idsByRef(t, acme, 'roles');
    expect((await admin.put('/api/persons/ola').send({ role_ids: [role.welder, role['safety-rep']] })).status).toBe(200);
    expect((await admin.delete('/api/persons/ola').send({ role_ids: [role['safety-rep']] })).status).toBe(200);
    const [removed, added] = await log('?type=roles.changed&user_name=ola');
    expect(added).toMatchObject({ actor: 'admin', subject: 'ola', details: { added: [role['safety-rep']], removed: [] } });
    expect(removed).toMatchObject({ details: { added: [], removed: [role['safety-rep']] } });
  });

  it('records config changes with old and new value, but never the value of a secret item', async () => {
    expect((await admin.put('/api/configitems/password.max_age_days').send({ value: 45 })).status).toBe(200);
    expect((await admin.put('/api/configitems/api.oauth.secret').send({ value: 'a-brand-new-shared-secret-42' })).status).toBe(200);
    const [secret, plain] = await log('?type=config.changed');
    expect(plain).toMatchObject({ actor: 'admin', subject: 'password.max_age_days', details: { old_value: 90, new_value: 45 } });
    expect(secret).toMatchObject({ subject: 'api.oauth.secret', details: { value_hidden: true } });
    expect(JSON.stringify(await log())).not.toContain('a-brand-new-shared-secret-42');
  });

  it('records operator actions through /platform with actor operator', async () => {
    expect(
      (
        await operator(t, TOKEN)
          .post(`/platform/tenants/${acme.slug}/hosts`)
          .send({ host: `extra-${acme.host}` })
      ).status,
    ).toBe(200);
    expect((await operator(t, TOKEN).get(`/platform/tenants/${acme.slug}/export?secrets=0`)).status).toBe(200);
    const entries = await log('?type=operator.host_added,operator.exported');
    expect(entries.map((e) => [e.type, e.actor])).toEqual([
      ['operator.exported', 'operator'],
      ['operator.host_added', 'operator'],
    ]);
    expect(entries[1].details).toMatchObject({ host: `extra-${acme.host}`, via: 'http' });
  });

  it('records operator actions through the CLI code path (TenantAdminService) with via cli', async () => {
    const ops = t.container.resolve(TenantAdminService);
    await ops.suspend(globex.slug);
    await ops.resume(globex.slug);
    const rows = await t.container.resolve(KNEX).withSchema(globex.schema).table('audit_log').whereLike('type', 'operator.%').orderBy('audit_id');
    expect(rows.map((r: any) => [r.type, r.actor, r.details.via])).toEqual([
      ['operator.suspended', 'operator', 'cli'],
      ['operator.resumed', 'operator', 'cli'],
    ]);
  });

  it('filters by date and pages newest first', async () => {
    const all = await log('?limit=100');
    expect(all.length).toBeGreaterThanOrEqual(8);
    const ids = all.map((e) => e.audit_id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const page2 = await log('?limit=2&offset=2');
    expect(page2.map((e) => e.audit_id)).toEqual(ids.slice(2, 4));
    const today = new Date().toISOString().slice(0, 10);
    expect((await log(`?startdate=${today}&enddate=${today}&limit=100`)).length).toBe(all.length);
    expect(await log('?enddate=2000-01-01')).toEqual([]);
    const clamped = await admin.get('/api/auditlog?limit=101');
    expect(clamped.status).toBe(200);
    expect(clamped.body.message).toContain('served 100');
    expect((await admin.get('/api/auditlog?limit=-1')).body).toMatchObject({ errorcode: 420, parameter: 'limit' });
    expect((await admin.get('/api/auditlog?startdate=yesterday')).body).toMatchObject({ errorcode: 420, parameter: 'startdate' });
  });

  it("is per tenant: globex's log holds none of acme's entries", async () => {
    const rows = await t.container.resolve(KNEX).withSchema(globex.schema).table('audit_log').select('subject');
    expect(rows.map((r: any) => r.subject)).not.toContain('ola');
  });

  it('the table refuses UPDATE and DELETE', async () => {
    const knex = t.container.resolve(KNEX);
    await expect(knex.withSchema(acme.schema).table('audit_log').update({ actor: 'someone-else' })).rejects.toThrow(/append-only/);
    await expect(knex.withSchema(acme.schema).table('audit_log').delete()).rejects.toThrow(/append-only/);
  });
});
