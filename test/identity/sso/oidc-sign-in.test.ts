import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { PassThrough } from 'node:stream';
import { TenantAdminService } from '../../../src/tenancy';
import { readArchive, tableRows } from '../../tenancy/tenants/archive-support';
import { tenantDb } from '../../courses/events/events-support';
import { startTestOp, type TestOp } from './oidc-test-provider';

const SECRET = 'op-client-secret-that-is-long-enough-0123456789';
let t: TestApp;
let strict: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let op: TestOp;
let admin: Awaited<ReturnType<typeof asAcme>>;
/** byEmail: email → email, jit=0; jit: preferred_username → user_name, jit=1; other: a client the provider does not know as ours. */
const ids = { byEmail: '', jit: '', globex: '' };

function tgVisit(res: { headers: Record<string, unknown> }): string | undefined {
  const cookies = (res.headers['set-cookie'] as string[] | undefined) ?? [];
  return cookies.find((c) => c.startsWith('tg-visit='))?.split(';')[0];
}

async function createProvider(c: ReturnType<typeof client>, data: Record<string, unknown>) {
  const res = await c.post('/api/identityproviders').send({ identityprovider_data: data });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.identityproviders[0] as Record<string, unknown> & { identityprovider_id: string };
}

/** /login → the provider → the callback URL it sends the browser to (not yet followed). */
async function throughProvider(host: string, providerId: string, forwardUrl?: string): Promise<URL> {
  const start = await client(t, host)
    .get(`/api/sso/${providerId}/login`)
    .query(forwardUrl ? { forward_url: forwardUrl } : {})
    .redirects(0);
  expect(start.status, JSON.stringify(start.body)).toBe(302);
  const auth = new URL(start.headers.location);
  expect(auth.origin).toBe(op.issuer);
  expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
  expect(auth.searchParams.get('nonce')).toBeTruthy();
  return op.authorize(start.headers.location);
}

const callback = (host: string, url: URL) =>
  client(t, host)
    .get(url.pathname + url.search)
    .redirects(0);

beforeAll(async () => {
  t = await createTestApp({ IDENTITY_PROVIDERS_ALLOW_HTTP: '1' });
  strict = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  op = await startTestOp();
  admin = await asAcme(t, acme.host, 'admin');
  const orgs = await admin.get('/api/organisations');
  const roles = await admin.get('/api/roles');
  const orgId = orgs.body.organisations[0].organisation_id ?? orgs.body.organisations[0].id;
  const roleId = roles.body.roles[0].role_id ?? roles.body.roles[0].id;
  ids.byEmail = (
    await createProvider(admin, { name: 'Test OP', type: 'oidc', issuer: op.issuer, client_id: 'acme-app', client_secret: SECRET })
  ).identityprovider_id;
  ids.jit = (
    await createProvider(admin, {
      name: 'Test OP jit',
      type: 'oidc',
      issuer: op.issuer,
      client_id: 'acme-jit',
      client_secret: SECRET,
      match_claim: 'preferred_username',
      match_field: 'user_name',
      jit: 1,
      jit_organisation_id: orgId,
      jit_role_ids: [roleId],
    })
  ).identityprovider_id;
  const globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
  ids.globex = (
    await createProvider(globexAdmin, { name: 'Globex OP', type: 'oidc', issuer: op.issuer, client_id: 'globex-app', client_secret: SECRET })
  ).identityprovider_id;
  op.register([
    { client_id: 'acme-app', client_secret: SECRET, redirect_uris: [`https://${acme.host}/api/sso/${ids.byEmail}/callback`] },
    { client_id: 'acme-jit', client_secret: SECRET, redirect_uris: [`https://${acme.host}/api/sso/${ids.jit}/callback`] },
    {
      client_id: 'globex-app',
      client_secret: SECRET,
      redirect_uris: [`https://${globex.host}/api/sso/${ids.globex}/callback`, `https://${acme.host}/api/sso/${ids.globex}/callback`],
    },
  ]);
}, 60_000);
afterAll(async () => {
  await op?.close();
  await strict?.close();
  await t?.close();
});

describe('OIDC sign-in through a real OpenID provider', () => {
  it('signs ola in by e-mail: session cookie, redirect to forward_url, GET /api/person is ola; login.sso is audited', async () => {
    op.signInAs({ sub: 'op-ola', email: 'ola@acme.example' });
    const back = await throughProvider(acme.host, ids.byEmail, 'https://portal.acme.example/start');
    expect(back.pathname).toBe(`/api/sso/${ids.byEmail}/callback`);
    const res = await callback(acme.host, back);
    expect(res.status, JSON.stringify(res.body)).toBe(302);
    expect(res.headers.location).toBe('https://portal.acme.example/start');
    const session = tgVisit(res)!;
    expect(session).toBeTruthy();
    const me = await client(t, acme.host, session).get('/api/person');
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.body)).toContain('"ola"');

    // the same callback again: the state was used up
    const replay = await callback(acme.host, back);
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ errorcode: 401 });
    expect(tgVisit(replay)).toBeUndefined();

    const log = await admin.get('/api/auditlog').query({ limit: 50 });
    expect(JSON.stringify(log.body)).toContain('login.sso');
  });

  it('refuses an unknown person without jit (401, no session)', async () => {
    op.signInAs({ sub: 'op-stranger', email: 'stranger@elsewhere.example' });
    const res = await callback(acme.host, await throughProvider(acme.host, ids.byEmail));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ errorcode: 401 });
    expect(tgVisit(res)).toBeUndefined();
    expect(res.body.message).toContain('no person');
  });

  it('refuses a deactivated person (401, no session)', async () => {
    const off = await admin.put('/api/persons/siri/deactivate').send({});
    expect([200, 201], JSON.stringify(off.body)).toContain(off.status);
    op.signInAs({ sub: 'op-siri', email: 'siri@acme.example' });
    const res = await callback(acme.host, await throughProvider(acme.host, ids.byEmail));
    expect(res.status).toBe(401);
    expect(res.body.message).toContain('deactivated');
    expect(tgVisit(res)).toBeUndefined();
  });

  it('refuses an ID token for another audience, from another issuer or expired (401, no session)', async () => {
    const cases: [string, (c: any) => any][] = [
      ['audience', (c) => ({ ...c, aud: 'someone-else' })],
      ['issuer', (c) => ({ ...c, iss: 'https://evil.example' })],
      ['expired', (c) => ({ ...c, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 })],
      ['nonce', (c) => ({ ...c, nonce: 'another-nonce' })],
    ];
    const MESSAGES: Record<string, RegExp> = { audience: /aud/, issuer: /iss/, expired: /exp|expired/, nonce: /nonce/ };
    op.signInAs({ sub: 'op-ola', email: 'ola@acme.example' });
    try {
      for (const [what, fn] of cases) {
        op.tamper(fn);
        const res = await callback(acme.host, await throughProvider(acme.host, ids.byEmail));
        expect(res.status, what).toBe(401);
        expect(res.body.message, what).toMatch(MESSAGES[what]);
        expect(tgVisit(res), what).toBeUndefined();
      }
    } finally {
      op.tamper(null);
    }
  });

  it('with jit=1 creates the unknown person in the configured organisation and roles (person.created), and signs them in', async () => {
    const db = tenantDb(t, acme);
    await db.table('webhook_endpoints').insert({ url: 'https://hooks.example/in', events: ['person.created'], secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=' });
    op.signInAs({ sub: 'op-new', preferred_username: 'newcomer', email: 'newcomer@acme.example', given_name: 'New', family_name: 'Comer' });
    const res = await callback(acme.host, await throughProvider(acme.host, ids.jit));
    expect(res.status, JSON.stringify(res.body)).toBe(302);
    expect(res.headers.location).toBe('/');
    const me = await client(t, acme.host, tgVisit(res)).get('/api/person');
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.body)).toContain('newcomer');
    const created = await admin.get('/api/persons/newcomer').query({ view: 'full' });
    expect(created.status).toBe(200);
    expect(created.body.persons[0]).toMatchObject({ email: 'newcomer@acme.example', firstname: 'New', lastname: 'Comer' });
    const events = await db.table('webhook_events').where({ type: 'person.created' }).select('body');
    expect(events.map((e: any) => JSON.parse(e.body).data.user_name)).toContain('newcomer');
  });

  it("refuses another tenant's provider id on this tenant's host (401), and a forward_url on a foreign host (420)", async () => {
    const res = await client(t, acme.host).get(`/api/sso/${ids.globex}/login`).redirects(0);
    expect(res.status).toBe(401);
    const back = await client(t, acme.host)
      .get(`/api/sso/${ids.globex}/callback`)
      .query({ state: 'x'.repeat(32), code: 'y', session_state: 'z' })
      .redirects(0);
    expect(back.status).toBe(401);
    const evil = await client(t, acme.host).get(`/api/sso/${ids.byEmail}/login`).query({ forward_url: 'https://evil.example/' }).redirects(0);
    expect(evil.status).toBe(400);
    expect(evil.body).toMatchObject({ errorcode: 420 });
  });

  it('a state started for one provider is not accepted by another, and is used up by the try', async () => {
    op.signInAs({ sub: 'op-ola', email: 'ola@acme.example' });
    const back = await throughProvider(acme.host, ids.byEmail);
    const other = await client(t, acme.host).get(`/api/sso/${ids.jit}/callback${back.search}`).redirects(0);
    expect(other.status).toBe(401);
    expect(other.body.message).toContain('another identity provider');
    expect((await callback(acme.host, back)).status).toBe(401);
  });

  it('a state started on one tenant is not accepted on another', async () => {
    op.signInAs({ sub: 'op-ola', email: 'ola@acme.example' });
    const back = await throughProvider(globex.host, ids.globex);
    const res = await client(t, acme.host).get(`/api/sso/${ids.globex}/callback${back.search}`).redirects(0);
    expect(res.status).toBe(401);
  });
});

describe('identity provider administration', () => {
  it('never shows the client secret, in answers or the audit log', async () => {
    const one = await admin.get(`/api/identityproviders/${ids.byEmail}`);
    expect(one.status).toBe(200);
    expect(one.body.identityproviders[0]).toMatchObject({ client_secret_set: true, scopes: 'openid email profile', match_field: 'email', jit: false });
    const list = await admin.get('/api/identityproviders');
    const log = await admin.get('/api/auditlog').query({ limit: 100 });
    for (const body of [one.body, list.body, log.body]) expect(JSON.stringify(body)).not.toContain(SECRET);
    expect(JSON.stringify(log.body)).toContain('identityprovider.created');
  });

  it('PUT and DELETE change and remove (Idempotency-Key replays); OIDC fields on a saml provider are 420; ordinary users get 403', async () => {
    const p = await createProvider(admin, { name: 'Temp', type: 'oidc', issuer: 'https://login.example.com/tenant/v2.0', client_id: 'c' });
    expect(p.client_secret_set).toBe(false);
    const put = await admin
      .put(`/api/identityproviders/${p.identityprovider_id}`)
      .set('Idempotency-Key', 'idp-put-1')
      .send({ identityprovider_data: { client_secret: 'new-secret-xyz', name: 'Renamed' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.identityproviders[0]).toMatchObject({ name: 'Renamed', client_secret_set: true });
    expect(JSON.stringify(put.body)).not.toContain('new-secret-xyz');
    const again = await admin
      .put(`/api/identityproviders/${p.identityprovider_id}`)
      .set('Idempotency-Key', 'idp-put-1')
      .send({ identityprovider_data: { client_secret: 'new-secret-xyz', name: 'Renamed' } });
    expect(again.status).toBe(200);
    expect((await admin.delete(`/api/identityproviders/${p.identityprovider_id}`)).status).toBe(200);
    expect((await admin.get(`/api/identityproviders/${p.identityprovider_id}`)).status).toBe(404);

    const saml = await admin
      .post('/api/identityproviders')
      .send({ identityprovider_data: { name: 'S', type: 'saml', issuer: 'https://x.example', client_id: 'c' } });
    expect(saml.body).toMatchObject({ errorcode: 420 });
    const ola = await asAcme(t, acme.host, 'ola');
    expect((await ola.get('/api/identityproviders')).status).toBe(403);
  });

  it('a tenant archive exported with secrets=0 holds the providers without their client secret', async () => {
    const archive = async (secrets: boolean) => {
      const out = new PassThrough();
      const parts: Buffer[] = [];
      out.on('data', (d: Buffer) => parts.push(d));
      await t.container.resolve(TenantAdminService).exportArchive(acme.slug, out, { secrets });
      out.end();
      return readArchive(Buffer.concat(parts));
    };
    const without = tableRows(await archive(false), 'identity_providers');
    expect(without.length).toBeGreaterThan(0);
    expect(without.every((r) => r.client_secret === null)).toBe(true);
    expect(tableRows(await archive(true), 'identity_providers').some((r) => r.client_secret === SECRET)).toBe(true);
  });

  it('refuses an http issuer unless IDENTITY_PROVIDERS_ALLOW_HTTP=1', async () => {
    const c = client(strict, acme.host, await loginCookie(strict, acme.host, 'admin', 'Acme-Admin-Pass-1'));
    const res = await c
      .post('/api/identityproviders')
      .send({ identityprovider_data: { name: 'Plain', type: 'oidc', issuer: 'http://idp.example', client_id: 'c' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorcode: 420 });
    expect(res.body.message).toContain('https');
    // and a provider stored with http is not used for sign-in there either
    const login = await client(strict, acme.host).get(`/api/sso/${ids.byEmail}/login`).redirects(0);
    expect(login.status).toBe(400);
  });

  it('without IDENTITY_PROVIDERS_ALLOW_HTTP discovery never reaches a loopback or private address (SSRF)', async () => {
    const c = client(strict, acme.host, await loginCookie(strict, acme.host, 'admin', 'Acme-Admin-Pass-1'));
    let reached = 0;
    // counts TCP connections: an https attempt on this plain server would connect, then fail TLS
    const trap = http.createServer((_req, res) => res.end('{}'));
    trap.on('connection', () => reached++);
    await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
    try {
      const port = (trap.address() as AddressInfo).port;
      const made = await c
        .post('/api/identityproviders')
        .send({ identityprovider_data: { name: 'Inside', type: 'oidc', issuer: `https://127.0.0.1:${port}`, client_id: 'c' } });
      expect(made.status).toBe(201);
      const login = await client(strict, acme.host).get(`/api/sso/${made.body.identityproviders[0].identityprovider_id}/login`).redirects(0);
      expect(login.status).toBe(503);
      expect(login.body).toMatchObject({ valid: false, errorcode: expect.any(Number) });
      expect(reached).toBe(0);
    } finally {
      trap.close();
    }
  });
});
