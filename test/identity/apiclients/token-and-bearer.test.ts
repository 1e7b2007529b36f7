import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { REDIS } from '../../../src/platform/tokens';
import { tenantKeyPrefix } from '../../../src/platform/redis/redis-keys';
import { sha256Hex } from '../../../src/identity';
import { importDemoTenant, useAcmeApp, type DemoTenant } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { accessToken, bearer, createClient, tokenRequest, type CreatedClient } from './apiclients-support';

const bed = useAcmeApp();
let reader: CreatedClient;
let writer: CreatedClient;
let globex: DemoTenant;

beforeAll(async () => {
  const admin = await asAcme(bed.t, bed.acme.host, 'admin');
  reader = await createClient(admin, { name: 'reader', scopes: ['api.read'], run_as_user_name: 'admin' });
  writer = await createClient(admin, { name: 'writer', scopes: ['api.read', 'api.write', 'scim'], run_as_user_name: 'admin' });
  globex = await importDemoTenant(bed.t, 'globex');
});

describe('POST /oauth/token (client credentials)', () => {
  it('answers RFC 6749 JSON with no-store, by client_secret_post and client_secret_basic', async () => {
    for (const basic of [false, true]) {
      const res = await tokenRequest(bed.t, bed.acme.host, reader, {}, basic);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ access_token: expect.stringMatching(/^at_/), token_type: 'Bearer', expires_in: 3600, scope: 'api.read' });
    }
  });

  it('grants a subset of the scopes asked for; another scope is invalid_scope (400)', async () => {
    const ok = await tokenRequest(bed.t, bed.acme.host, writer, { scope: 'api.read' });
    expect(ok.body.scope).toBe('api.read');
    const bad = await tokenRequest(bed.t, bed.acme.host, reader, { scope: 'api.read api.write' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_scope', error_description: expect.any(String) });
  });

  it('refuses a wrong secret (invalid_client 401, WWW-Authenticate for Basic) and another grant type (400)', async () => {
    const wrong = await tokenRequest(bed.t, bed.acme.host, { ...reader, client_secret: 'cs_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const wrongBasic = await tokenRequest(bed.t, bed.acme.host, { ...reader, client_secret: 'cs_wrong' }, {}, true);
    expect(wrongBasic.status).toBe(401);
    expect(wrongBasic.headers['www-authenticate']).toMatch(/^Basic /);
    const unknown = await tokenRequest(bed.t, bed.acme.host, { client_id: 'cli_000000000000000000000000', client_secret: reader.client_secret });
    expect(unknown.status).toBe(401);
    const grant = await tokenRequest(bed.t, bed.acme.host, reader, { grant_type: 'password' });
    expect(grant.status).toBe(400);
    expect(grant.body.error).toBe('unsupported_grant_type');
    const none = await request(bed.t.app).post('/oauth/token').set('Host', bed.acme.host).type('form').send({ grant_type: 'client_credentials' });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('invalid_client');
  });

  it("refuses a client on another tenant's host (invalid_client)", async () => {
    const res = await tokenRequest(bed.t, globex.host, reader);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('is throttled like login (429 after 5 failures from one address)', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const victim = await createClient(admin, { name: 'throttled', scopes: ['api.read'], run_as_user_name: 'admin' });
    for (let i = 0; i < 5; i++) expect((await tokenRequest(bed.t, bed.acme.host, { ...victim, client_secret: `cs_guess${i}` })).status).toBe(401);
    const res = await tokenRequest(bed.t, bed.acme.host, victim);
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
  });
});

describe('Authorization: Bearer on /api', () => {
  it('api.read reads; a write is 403 in the envelope', async () => {
    const token = await accessToken(bed.t, bed.acme.host, reader);
    const api = bearer(bed.t, bed.acme.host, token);
    const read = await api.get('/api/persons/ola');
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const write = await api.post('/api/organisations').send({ organisation_data: { name: 'By token (read only)' } });
    expect(write.status).toBe(403);
    expect(write.body.valid).toBe(false);
    expect(write.body.errorcode).toBe(403);
  });

  it('api.write writes as the run-as person; last_used_at is recorded', async () => {
    const token = await accessToken(bed.t, bed.acme.host, writer);
    const write = await bearer(bed.t, bed.acme.host, token)
      .post('/api/organisations')
      .send({ organisation_data: { name: 'By token' } });
    expect(write.status, JSON.stringify(write.body)).toBe(200);
    expect(write.body.organisations[0].name).toBe('By token');
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const one = await admin.get(`/api/apiclients/${writer.client_id}`);
    expect(one.body.apiclients[0].last_used_at).not.toBeNull();
  });

  it("is 401 on another tenant's host, with an unknown token, and once expired", async () => {
    const token = await accessToken(bed.t, bed.acme.host, reader);
    expect((await bearer(bed.t, globex.host, token).get('/api/persons/admin')).status).toBe(401);
    expect((await bearer(bed.t, bed.acme.host, 'at_nonsense').get('/api/persons/ola')).status).toBe(401);
    const redis = bed.t.container.resolve(REDIS);
    const key = `${tenantKeyPrefix({ id: bed.acme.tenantId }, redis)}oauth:at:${sha256Hex(token)}`;
    expect(await redis.ttl(key)).toBeGreaterThan(3500);
    await redis.del(key); // what the TTL does after OAUTH_TOKEN_TTL_SECONDS
    const res = await bearer(bed.t, bed.acme.host, token).get('/api/persons/ola');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });

  it('a revoked client (DELETE) gets 401 at once, tokens included', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const c = await createClient(admin, { name: 'revoked', scopes: ['api.read'], run_as_user_name: 'admin' });
    const token = await accessToken(bed.t, bed.acme.host, c);
    expect((await bearer(bed.t, bed.acme.host, token).get('/api/persons/ola')).status).toBe(200);
    expect((await admin.delete(`/api/apiclients/${c.client_id}`)).status).toBe(200);
    expect((await bearer(bed.t, bed.acme.host, token).get('/api/persons/ola')).status).toBe(401);
    expect((await tokenRequest(bed.t, bed.acme.host, c)).status).toBe(401);
  });

  it('a rotation ends the old secret (invalid_client) and its tokens; the new secret works', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const c = await createClient(admin, { name: 'rotated', scopes: ['api.read'], run_as_user_name: 'admin' });
    const token = await accessToken(bed.t, bed.acme.host, c);
    const r = await admin.put(`/api/apiclients/${c.client_id}/rotate_secret`);
    expect(r.status).toBe(200);
    const old = await tokenRequest(bed.t, bed.acme.host, c);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    expect((await bearer(bed.t, bed.acme.host, token).get('/api/persons/ola')).status).toBe(401);
    const fresh = await accessToken(bed.t, bed.acme.host, { ...c, client_secret: r.body.apiclients[0].client_secret });
    expect((await bearer(bed.t, bed.acme.host, fresh).get('/api/persons/ola')).status).toBe(200);
  });

  it('a scim-only token is refused on /api (403)', async () => {
    const token = await accessToken(bed.t, bed.acme.host, writer, 'scim');
    expect((await bearer(bed.t, bed.acme.host, token).get('/api/persons/ola')).status).toBe(403);
  });
});
