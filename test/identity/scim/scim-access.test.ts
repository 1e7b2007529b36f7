import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, importDemoTenant, useAcmeApp, type DemoTenant } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { accessToken, bearer, createClient } from '../apiclients/apiclients-support';
import { PATCH_OP, expectScimError, json, scim, scimClient } from './scim-support';

/** Who may call /scim/v2 (a token with the scope scim of this tenant), the SCIM error format, and deactivation ending sessions. */
const bed = useAcmeApp();
let api: ReturnType<typeof scim>;
let scimToken: string;
let globex: DemoTenant;

beforeAll(async () => {
  scimToken = (await scimClient(bed.t, bed.acme)).token;
  api = scim(bed.t, bed.acme.host, scimToken);
  globex = await importDemoTenant(bed.t, 'globex');
});

describe('authentication', () => {
  it('no token, an unknown token, a revoked one: 401 in the SCIM error format with WWW-Authenticate', async () => {
    const none = await request(bed.t.app).get('/scim/v2/Users').set('Host', bed.acme.host);
    expectScimError(none, 401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    expectScimError(await scim(bed.t, bed.acme.host, `at_${'x'.repeat(43)}`).get('/Users'), 401);
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const doomed = await createClient(admin, { name: 'doomed', scopes: ['scim'] });
    const token = await accessToken(bed.t, bed.acme.host, doomed);
    expect((await scim(bed.t, bed.acme.host, token).get('/Users?count=1')).status).toBe(200);
    expect((await admin.delete(`/api/apiclients/${doomed.client_id}`)).status).toBe(200);
    expectScimError(await scim(bed.t, bed.acme.host, token).get('/Users?count=1'), 401);
  });

  it('an api-only token is 403 on /scim; a scim-only token is 403 on /api; a client with both scopes works on both', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const reader = await createClient(admin, { name: 'reader', scopes: ['api.read'], run_as_user_name: 'admin' });
    expectScimError(await scim(bed.t, bed.acme.host, await accessToken(bed.t, bed.acme.host, reader)).get('/Users'), 403);
    const onApi = await bearer(bed.t, bed.acme.host, scimToken).get('/api/persons/ola');
    expect(onApi.status).toBe(403);
    expect(onApi.body).toMatchObject({ valid: false, errorcode: 403 });
    const both = await createClient(admin, { name: 'both', scopes: ['api.read', 'scim'], run_as_user_name: 'admin' });
    const token = await accessToken(bed.t, bed.acme.host, both);
    expect((await scim(bed.t, bed.acme.host, token).get('/Users?count=1')).status).toBe(200);
    expect((await bearer(bed.t, bed.acme.host, token).get('/api/persons/ola')).status).toBe(200);
  });

  it('HTTP Basic with the client id and secret works for a scim client (Okta Basic Auth, Keycloak extensions); a wrong secret is 401', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const c = await createClient(admin, { name: 'basic', scopes: ['scim'] });
    const basic = (secret: string) => `Basic ${Buffer.from(`${c.client_id}:${secret}`).toString('base64')}`;
    const ok = await request(bed.t.app).get('/scim/v2/Users?count=1').set('Host', bed.acme.host).set('Authorization', basic(c.client_secret));
    expect(ok.status, ok.text).toBe(200);
    const wrong = await request(bed.t.app).get('/scim/v2/Users?count=1').set('Host', bed.acme.host).set('Authorization', basic('cs_wrong'));
    expectScimError(wrong, 401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
    const reader = await createClient(admin, { name: 'basic reader', scopes: ['api.read'], run_as_user_name: 'admin' });
    const noScope = await request(bed.t.app)
      .get('/scim/v2/Users')
      .set('Host', bed.acme.host)
      .set('Authorization', `Basic ${Buffer.from(`${reader.client_id}:${reader.client_secret}`).toString('base64')}`);
    expectScimError(noScope, 403);
  });

  it("tenant isolation: acme's token on globex's host is 401; globex's persons are never visible on acme", async () => {
    expectScimError(await scim(bed.t, globex.host, scimToken).get('/Users'), 401);
    const found = await api.get(`/Users?filter=${encodeURIComponent('userName eq "homer"')}`);
    expect(json(found).totalResults).toBe(0);
    const globexAdmin = client(bed.t, globex.host, await loginCookie(bed.t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    const g = await createClient(globexAdmin, { name: 'globex scim', scopes: ['scim'] });
    const gApi = scim(bed.t, globex.host, await accessToken(bed.t, globex.host, g));
    const homer = json(await gApi.get(`/Users?filter=${encodeURIComponent('userName eq "homer"')}`)).Resources[0];
    expect(homer.userName).toBe('homer');
    // the same id on acme's host names acme's person of that id (if any), never homer
    const onAcme = await api.get(`/Users/${homer.id}`);
    if (onAcme.status === 200) expect(json(onAcme).userName).not.toBe('homer');
    else expectScimError(onAcme, 404);
  });
});

describe('errors in the SCIM error schema', () => {
  it('404 unknown user, 409 uniqueness on a duplicate userName (any case), 400 invalidFilter, invalidSyntax, invalidValue, invalidPath', async () => {
    expectScimError(await api.get('/Users/999999'), 404);
    expectScimError(await api.get('/Users/not-a-number'), 404);
    expectScimError(await api.post('/Users', { userName: 'OLA' }), 409, 'uniqueness');
    expectScimError(await api.get(`/Users?filter=${encodeURIComponent('userName eq')}`), 400, 'invalidFilter');
    expectScimError(await api.get(`/Users?filter=${encodeURIComponent('userName xx "a"')}`), 400, 'invalidFilter');
    expectScimError(await api.get(`/Users?filter=${encodeURIComponent('nickName eq "a"')}`), 400, 'invalidFilter');
    const bad = await request(bed.t.app)
      .post('/scim/v2/Users')
      .set('Host', bed.acme.host)
      .set('Authorization', `Bearer ${scimToken}`)
      .set('Content-Type', 'application/scim+json')
      .send('{"userName": ');
    expectScimError(bad, 400, 'invalidSyntax');
    expectScimError(await api.post('/Users', { name: { givenName: 'No user name' } }), 400, 'invalidValue');
    expectScimError(await api.post('/Users', { userName: 'bad mobile', phoneNumbers: [{ type: 'mobile', value: 'call me' }] }), 400, 'invalidValue');
    const ola = json(await api.get(`/Users?filter=${encodeURIComponent('userName eq "ola"')}`)).Resources[0];
    expectScimError(
      await api.patch(`/Users/${ola.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'jump', path: 'title', value: 'x' }] }),
      400,
      'invalidSyntax',
    );
    expectScimError(
      await api.patch(`/Users/${ola.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails[type eq', value: 'x' }] }),
      400,
      'invalidPath',
    );
    expectScimError(
      await api.patch(`/Users/${ola.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: 'maybe' }] }),
      400,
      'invalidValue',
    );
    expectScimError(await api.post('/Groups', { displayName: 'Welder' }), 409, 'uniqueness');
    expectScimError(await api.get('/Nothing'), 404);
  });
});

describe('deactivation through SCIM', () => {
  it("ends a deactivated person's open session at once: their next request is 401", async () => {
    const ola = client(bed.t, bed.acme.host, await loginCookie(bed.t, bed.acme.host, 'ola', 'Ola-Worker-Pass-1'));
    expect((await ola.get('/api/person')).status).toBe(200);
    const found = json(await api.get(`/Users?filter=${encodeURIComponent('userName eq "ola"')}`)).Resources[0];
    const res = await api.patch(`/Users/${found.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    expect(res.status, res.text).toBe(200);
    const after = await ola.get('/api/person');
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ valid: false, errorcode: 401 });
  });
});
