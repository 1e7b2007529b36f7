import { describe, expect, it } from 'vitest';
import { REDIS } from '../../../src/platform/tokens';
import { tenantKeyPrefix } from '../../../src/platform/redis/redis-keys';
import { client, importDemoTenant, useAcmeApp } from '../../support/test-app';
import { GLOBEX_PASSWORDS, asAcme, loginCookie } from '../../support/login';
import { createClient } from './apiclients-support';

const bed = useAcmeApp();

describe('API clients: administration (superusers)', () => {
  it('creates a client whose secret is shown once; list and one never show it', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const res = await admin.post('/api/apiclients').send({ apiclient_data: { name: 'HR sync', scopes: ['api.read'], run_as_user_name: 'admin' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const c = res.body.apiclients[0];
    expect(c.client_id).toMatch(/^cli_[0-9a-f]{24}$/);
    expect(c.client_secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    expect(c).toMatchObject({ name: 'HR sync', scopes: ['api.read'], run_as_user_name: 'admin', secret_set: true, created_by: 'admin', last_used_at: null });

    const one = await admin.get(`/api/apiclients/${c.client_id}`);
    expect(one.status).toBe(200);
    expect(one.body.apiclients[0]).toMatchObject({ client_id: c.client_id, secret_set: true });
    expect(JSON.stringify(one.body)).not.toContain(c.client_secret);
    expect(one.body.apiclients[0].client_secret).toBeUndefined();
    const list = await admin.get('/api/apiclients');
    expect(list.body.apiclients.map((x: any) => x.client_id)).toContain(c.client_id);
    expect(JSON.stringify(list.body)).not.toContain(c.client_secret);
  });

  it('requires run_as_user_name for the api scopes, not for scim alone; refuses unknown scopes', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const missing = await admin.post('/api/apiclients').send({ apiclient_data: { name: 'x', scopes: ['api.write'] } });
    expect(missing.status).toBe(400);
    expect(missing.body.errorcode).toBe(419);
    const scim = await admin.post('/api/apiclients').send({ apiclient_data: { name: 'Entra', scopes: 'scim' } });
    expect(scim.status, JSON.stringify(scim.body)).toBe(201);
    const bad = await admin.post('/api/apiclients').send({ apiclient_data: { name: 'x', scopes: ['admin'], run_as_user_name: 'admin' } });
    expect(bad.status).toBe(400);
    const nobody = await admin.post('/api/apiclients').send({ apiclient_data: { name: 'x', scopes: ['api.read'], run_as_user_name: 'no-such-person' } });
    expect(nobody.status).toBe(404);
  });

  it('is for superusers only (403)', async () => {
    const ola = await asAcme(bed.t, bed.acme.host, 'ola');
    expect((await ola.get('/api/apiclients')).status).toBe(403);
    expect((await ola.post('/api/apiclients').send({ apiclient_data: { name: 'x', scopes: ['api.read'], run_as_user_name: 'ola' } })).status).toBe(403);
  });

  it("answers 404 for another tenant's client id", async () => {
    const globex = await importDemoTenant(bed.t, 'globex');
    const gAdmin = client(bed.t, globex.host, await loginCookie(bed.t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    const theirs = await createClient(gAdmin, { name: 'globex client', scopes: ['api.read'], run_as_user_name: 'admin' });
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    expect((await admin.get(`/api/apiclients/${theirs.client_id}`)).status).toBe(404);
    expect((await admin.delete(`/api/apiclients/${theirs.client_id}`)).status).toBe(404);
    expect((await admin.put(`/api/apiclients/${theirs.client_id}/rotate_secret`)).status).toBe(404);
  });

  it('keeps no answer carrying a secret in the idempotency store (a repeat of POST and rotate is 409 already done); DELETE replays', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const data = { apiclient_data: { name: 'idem', scopes: ['api.read'], run_as_user_name: 'admin' } };
    const first = await admin.post('/api/apiclients').set('Idempotency-Key', 'apiclient-create-1').send(data);
    expect(first.status).toBe(201);
    const rotated = await admin.put(`/api/apiclients/${first.body.apiclients[0].client_id}/rotate_secret`).set('Idempotency-Key', 'apiclient-rotate-1');
    expect(rotated.status).toBe(200);
    const secrets = [first.body.apiclients[0].client_secret, rotated.body.apiclients[0].client_secret];
    const redis = bed.t.container.resolve(REDIS);
    const keys = await redis.keys(`${tenantKeyPrefix({ id: bed.acme.tenantId }, redis)}idem:*`);
    for (const key of keys) {
      const text = (await redis.get(key)) ?? '';
      for (const s of secrets) expect(text).not.toContain(s);
      expect(text).not.toContain('client_secret');
    }
    // a repeat is neither a replay of the secret nor a second client: 409 "already done" (issue 40)
    const repeat = await admin.post('/api/apiclients').set('Idempotency-Key', 'apiclient-create-1').send(data);
    expect(repeat.status).toBe(409);
    expect(repeat.body).toMatchObject({ valid: false, errorcode: 409, message: expect.stringMatching(/already done.*rotate to see a new secret/) });
    const rotatedAgain = await admin.put(`/api/apiclients/${first.body.apiclients[0].client_id}/rotate_secret`).set('Idempotency-Key', 'apiclient-rotate-1');
    expect([rotatedAgain.status, rotatedAgain.body.message]).toEqual([409, expect.stringContaining('already done')]);
    const again = await admin.post('/api/apiclients').set('Idempotency-Key', 'apiclient-create-2').send(data);
    expect(again.status).toBe(201);
    expect(again.body.apiclients[0].client_id).not.toBe(first.body.apiclients[0].client_id);
    // DELETE is kept as any idempotent write
    const del = await admin.delete(`/api/apiclients/${again.body.apiclients[0].client_id}`).set('Idempotency-Key', 'apiclient-delete-1');
    expect(del.status).toBe(200);
    const delAgain = await admin.delete(`/api/apiclients/${again.body.apiclients[0].client_id}`).set('Idempotency-Key', 'apiclient-delete-1');
    expect(delAgain.status).toBe(200);
    expect(delAgain.headers['idempotent-replayed']).toBe('true');
  });

  it('audits created, secret_rotated and deleted without secrets', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const c = await createClient(admin, { name: 'audited', scopes: ['api.read', 'api.write'], run_as_user_name: 'admin' });
    const r = await admin.put(`/api/apiclients/${c.client_id}/rotate_secret`);
    expect(r.status).toBe(200);
    const newSecret = r.body.apiclients[0].client_secret;
    expect(newSecret).not.toBe(c.client_secret);
    expect((await admin.delete(`/api/apiclients/${c.client_id}`)).status).toBe(200);
    expect((await admin.get(`/api/apiclients/${c.client_id}`)).status).toBe(404);
    const log = await admin.get('/api/auditlog?type=apiclient.created,apiclient.secret_rotated,apiclient.deleted&limit=100');
    expect(log.status).toBe(200);
    const mine = log.body.auditlog.filter((e: any) => e.subject === c.client_id);
    expect(mine.map((e: any) => e.type).sort()).toEqual(['apiclient.created', 'apiclient.deleted', 'apiclient.secret_rotated']);
    const text = JSON.stringify(mine);
    expect(text).not.toContain(c.client_secret);
    expect(text).not.toContain(newSecret);
    expect(text).not.toMatch(/secret_hash|client_secret/);
  });
});
