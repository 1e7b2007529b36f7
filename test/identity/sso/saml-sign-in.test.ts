import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { tenantDb } from '../../courses/events/events-support';
import { startTestIdp, type PostedForm, type Tamper, type TestIdp } from './saml-test-idp';

// SAML 2.0 sign-in against samlify as the IdP on loopback: metadata read from the IdP's URL, our SP
// metadata given to the IdP, AuthnRequest by redirect, the signed response posted to the ACS from
// the IdP's origin (a cross-site POST), the session, and every refusal.
let t: TestApp;
let strict: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let idp: TestIdp;
let admin: Awaited<ReturnType<typeof asAcme>>;
/** byEmail: NameID → email, jit=0; jit: attribute uid → user_name, jit=1; globex: globex's provider. */
const ids = { byEmail: '', jit: '', globex: '' };

function tgVisit(res: { headers: Record<string, unknown> }): string | undefined {
  const cookies = (res.headers['set-cookie'] as string[] | undefined) ?? [];
  return cookies.find((c) => c.startsWith('tg-visit='))?.split(';')[0];
}

async function createProvider(c: ReturnType<typeof client>, data: Record<string, unknown>) {
  const res = await c.post('/api/identityproviders').send({ identityprovider_data: data });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.identityproviders[0] as Record<string, any> & { identityprovider_id: string };
}

/** Our SP metadata, handed to the IdP as an admin would upload it. */
async function trust(host: string, providerId: string) {
  const res = await client(t, host)
    .get(`/api/sso/${providerId}/metadata`)
    .buffer(true)
    .parse((r, cb) => {
      let text = '';
      r.on('data', (d: Buffer) => (text += d.toString('utf8')));
      r.on('end', () => cb(null, text));
    });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toContain('application/samlmetadata+xml');
  idp.trust(res.body as string);
  return res.body as string;
}

/** /login → the IdP → the form its page posts back (not yet posted). */
async function throughIdp(host: string, providerId: string, forwardUrl?: string): Promise<PostedForm> {
  const start = await client(t, host)
    .get(`/api/sso/${providerId}/login`)
    .query(forwardUrl ? { forward_url: forwardUrl } : {})
    .redirects(0);
  expect(start.status, JSON.stringify(start.body)).toBe(302);
  const sso = new URL(start.headers.location);
  expect(sso.origin + sso.pathname).toBe(`${idp.base}/sso`);
  expect(sso.searchParams.get('SAMLRequest')).toBeTruthy();
  return idp.respond(start.headers.location);
}

/** The browser posts the IdP's form: from the IdP's origin, cross-site. */
function post(host: string, form: PostedForm, cookie?: string) {
  const path = new URL(form.action).pathname;
  return client(t, host, cookie)
    .post(path)
    .set('Origin', idp.base)
    .type('form')
    .send({ SAMLResponse: form.SAMLResponse, ...(form.RelayState ? { RelayState: form.RelayState } : {}) })
    .redirects(0);
}

beforeAll(async () => {
  t = await createTestApp({ IDENTITY_PROVIDERS_ALLOW_HTTP: '1' });
  strict = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  idp = await startTestIdp();
  admin = await asAcme(t, acme.host, 'admin');
  const orgs = await admin.get('/api/organisations');
  const roles = await admin.get('/api/roles');
  const orgId = orgs.body.organisations[0].organisation_id ?? orgs.body.organisations[0].id;
  const roleId = roles.body.roles[0].role_id ?? roles.body.roles[0].id;
  const byEmail = await createProvider(admin, { name: 'Test IdP', type: 'saml', metadata_url: idp.metadataUrl });
  ids.byEmail = byEmail.identityprovider_id;
  ids.jit = (
    await createProvider(admin, {
      name: 'Test IdP jit',
      type: 'saml',
      metadata_xml: idp.metadataXml,
      match_claim: 'uid',
      match_field: 'user_name',
      jit: 1,
      jit_organisation_id: orgId,
      jit_role_ids: [roleId],
    })
  ).identityprovider_id;
  const globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
  ids.globex = (await createProvider(globexAdmin, { name: 'Globex IdP', type: 'saml', metadata_xml: idp.metadataXml })).identityprovider_id;
  await trust(acme.host, ids.byEmail);
  await trust(acme.host, ids.jit);
  await trust(globex.host, ids.globex);
}, 60_000);
afterAll(async () => {
  await idp?.close();
  await strict?.close();
  await t?.close();
});

describe('SAML sign-in through samlify as the IdP', () => {
  it('the provider answers its SP details; the metadata names our entity id and ACS URL', async () => {
    const one = (await admin.get(`/api/identityproviders/${ids.byEmail}`)).body.identityproviders[0];
    const base = `https://${acme.host}/api/sso/${ids.byEmail}`;
    expect(one).toMatchObject({
      type: 'saml',
      issuer: idp.entityId,
      client_id: null,
      metadata_url: idp.metadataUrl,
      sso_url: `${idp.base}/sso`,
      match_claim: 'nameid',
      match_field: 'email',
      sp_entity_id: `${base}/metadata`,
      sp_acs_url: `${base}/acs`,
      sp_metadata_url: `${base}/metadata`,
    });
    expect(one.certificates_not_after).toHaveLength(1);
    expect(one.redirect_uri).toBeUndefined();
    const xml = await trust(acme.host, ids.byEmail);
    expect(xml).toContain(`entityID="${base}/metadata"`);
    expect(xml).toContain(`Location="${base}/acs"`);
    expect(xml).toContain('urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress');
  });

  it('signs ola in by NameID: session cookie, redirect to forward_url, GET /api/person is ola; a replay is 401; login.sso audited', async () => {
    idp.signInAs({ nameId: 'ola@acme.example' });
    const form = await throughIdp(acme.host, ids.byEmail, 'https://portal.acme.example/start');
    expect(form.action).toBe(`https://${acme.host}/api/sso/${ids.byEmail}/acs`);
    // posted from the IdP's origin, with another person's session cookie along (SameSite=None browsers send it): no 403
    const res = await post(acme.host, form, await loginCookie(t, acme.host, 'admin', 'Acme-Admin-Pass-1'));
    expect(res.status, JSON.stringify(res.body)).toBe(302);
    expect(res.headers.location).toBe('https://portal.acme.example/start');
    const session = tgVisit(res)!;
    expect(session).toBeTruthy();
    const me = await client(t, acme.host, session).get('/api/person');
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.body)).toContain('"ola"');

    const replay = await post(acme.host, form);
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ valid: false, errorcode: 401 });
    expect(tgVisit(replay)).toBeUndefined();
    const log = await admin.get('/api/auditlog').query({ limit: 50 });
    expect(JSON.stringify(log.body)).toContain('login.sso');
  });

  it("accepts a response signed as a whole (Keycloak's default) or signed twice", async () => {
    idp.signInAs({ nameId: 'ola@acme.example' });
    for (const sign of ['response', 'both'] as const) {
      idp.tamper({ sign });
      const res = await post(acme.host, await throughIdp(acme.host, ids.byEmail));
      expect(res.status, `${sign}: ${JSON.stringify(res.body)}`).toBe(302);
      expect(tgVisit(res), sign).toBeTruthy();
    }
    idp.tamper(null);
  });

  it('refuses unsigned, foreign-signed, wrong issuer, wrong audience, expired, unknown InResponseTo and wrong Recipient (401, no session)', async () => {
    const cases: [string, Tamper, RegExp][] = [
      ['unsigned', { sign: 'none' }, /signature/i],
      ['signed by another key', { otherKey: true }, /signature/i],
      ['wrong issuer', { issuer: 'https://evil.example/idp' }, /issuer/i],
      ['wrong audience', { audience: 'https://someone-else.example/sp' }, /audience/i],
      ['expired', { expired: true }, /expired|not yet valid|subject confirmation/i],
      ['unknown InResponseTo', { inResponseTo: '_0123456789abcdef0123456789abcdef01234567' }, /InResponseTo/],
      ['wrong Recipient', { recipient: 'https://evil.example/acs' }, /Recipient|subject confirmation/i],
    ];
    idp.signInAs({ nameId: 'ola@acme.example' });
    try {
      for (const [what, tamper, message] of cases) {
        idp.tamper(tamper);
        const res = await post(acme.host, await throughIdp(acme.host, ids.byEmail));
        expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(401);
        expect(res.body, what).toMatchObject({ valid: false, errorcode: 401 });
        expect(res.body.message, what).toMatch(message);
        expect(tgVisit(res), what).toBeUndefined();
      }
    } finally {
      idp.tamper(null);
    }
  });

  it("refuses an unknown person without jit, and a response to another provider's request", async () => {
    idp.signInAs({ nameId: 'stranger@elsewhere.example' });
    const res = await post(acme.host, await throughIdp(acme.host, ids.byEmail));
    expect(res.status).toBe(401);
    expect(res.body.message).toContain('no person');
    idp.signInAs({ nameId: 'ola@acme.example', attributes: { uid: 'ola' } });
    const form = await throughIdp(acme.host, ids.byEmail);
    const other = await post(acme.host, { ...form, action: `https://${acme.host}/api/sso/${ids.jit}/acs` });
    expect(other.status).toBe(401);
    expect(tgVisit(other)).toBeUndefined();
  });

  it('with jit=1 creates the unknown person from the attributes (person.created) and signs them in', async () => {
    const db = tenantDb(t, acme);
    await db.table('webhook_endpoints').insert({ url: 'https://hooks.example/in', events: ['person.created'], secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=' });
    idp.signInAs({
      nameId: 'samlnew@acme.example',
      attributes: {
        uid: 'samlnew',
        'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress': 'samlnew@acme.example',
        givenName: 'Sam',
        surname: 'Lnew',
      },
    });
    const res = await post(acme.host, await throughIdp(acme.host, ids.jit));
    expect(res.status, JSON.stringify(res.body)).toBe(302);
    expect(res.headers.location).toBe('/');
    const me = await client(t, acme.host, tgVisit(res)).get('/api/person');
    expect(JSON.stringify(me.body)).toContain('samlnew');
    const created = await admin.get('/api/persons/samlnew').query({ view: 'full' });
    expect(created.body.persons[0]).toMatchObject({ email: 'samlnew@acme.example', firstname: 'Sam', lastname: 'Lnew' });
    const events = await db.table('webhook_events').where({ type: 'person.created' }).select('body');
    expect(events.map((e: any) => JSON.parse(e.body).data.user_name)).toContain('samlnew');
  });

  it("refuses another tenant's provider id on this tenant's host (401 at login, ACS and metadata)", async () => {
    idp.signInAs({ nameId: 'ola@acme.example' });
    expect((await client(t, acme.host).get(`/api/sso/${ids.globex}/login`).redirects(0)).status).toBe(401);
    expect((await client(t, acme.host).get(`/api/sso/${ids.globex}/metadata`)).status).toBe(401);
    // a genuine globex response, posted to globex's provider id on acme's host
    const form = await throughIdp(globex.host, ids.globex);
    const res = await post(acme.host, form);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ errorcode: 401 });
    expect(tgVisit(res)).toBeUndefined();
    // and an ACS call without SAMLResponse is 419
    const none = await client(t, acme.host).post(`/api/sso/${ids.byEmail}/acs`).type('form').send({ RelayState: 'x' });
    expect(none.body).toMatchObject({ errorcode: 419 });
  });
});

describe('SAML provider administration', () => {
  const bad = async (data: Record<string, unknown>, param: string, message?: RegExp) => {
    const res = await admin.post('/api/identityproviders').send({ identityprovider_data: { name: 'Bad', type: 'saml', ...data } });
    expect(res.body, JSON.stringify(data).slice(0, 80)).toMatchObject({ valid: false, errorcode: 420 });
    expect(res.body.message).toContain(`identityprovider_data[${param}]`);
    if (message) expect(res.body.message).toMatch(message);
  };

  it('refuses metadata that cannot be parsed or lacks the SSO URL or a signing certificate (420 naming the parameter)', async () => {
    await bad({ metadata_xml: '<not xml' }, 'metadata_xml', /XML/);
    await bad({ metadata_xml: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x/>' }, 'metadata_xml', /DOCTYPE/);
    await bad({ metadata_xml: idp.metadataXml.replace(/SingleSignOnService/g, 'ArtifactResolutionService') }, 'metadata_xml', /SSO URL/);
    await bad({ metadata_xml: idp.metadataXml.replace(/<(\w+:)?KeyDescriptor[\s\S]*<\/(\w+:)?KeyDescriptor>/, '') }, 'metadata_xml', /certificate/);
    await bad({ metadata_url: `${idp.base}/nothing-here` }, 'metadata_url', /404/);
    await bad({ metadata_xml: idp.metadataXml, metadata_url: idp.metadataUrl }, 'metadata_url', /not both/);
    await bad({ metadata_xml: idp.metadataXml, client_id: 'x' }, 'client_id', /oidc/);
    const missing = await admin.post('/api/identityproviders').send({ identityprovider_data: { name: 'No metadata', type: 'saml' } });
    expect(missing.body).toMatchObject({ errorcode: 419 });
  });

  it('without IDENTITY_PROVIDERS_ALLOW_HTTP an http metadata URL or SSO URL is refused', async () => {
    const c = client(strict, acme.host, await loginCookie(strict, acme.host, 'admin', 'Acme-Admin-Pass-1'));
    const url = await c.post('/api/identityproviders').send({ identityprovider_data: { name: 'Plain', type: 'saml', metadata_url: idp.metadataUrl } });
    expect(url.body).toMatchObject({ errorcode: 420 });
    expect(url.body.message).toMatch(/metadata_url.*https/);
    const xml = await c.post('/api/identityproviders').send({ identityprovider_data: { name: 'Plain', type: 'saml', metadata_xml: idp.metadataXml } });
    expect(xml.body).toMatchObject({ errorcode: 420 });
    expect(xml.body.message).toMatch(/metadata_xml.*SSO URL must be https/);
    // https, but to a loopback address: the SSRF filter refuses it at connect time
    const local = await c
      .post('/api/identityproviders')
      .send({ identityprovider_data: { name: 'Local', type: 'saml', metadata_url: 'https://127.0.0.1:9/metadata' } });
    expect(local.body).toMatchObject({ errorcode: 420 });
    expect(local.body.message).toMatch(/metadata_url.*not a public address/);
  });

  it('PUT reads the metadata URL again; the type cannot change; the audit log has no metadata document', async () => {
    const put = await admin.put(`/api/identityproviders/${ids.byEmail}`).send({ identityprovider_data: { metadata_url: idp.metadataUrl, name: 'Test IdP' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const type = await admin.put(`/api/identityproviders/${ids.byEmail}`).send({ identityprovider_data: { type: 'oidc' } });
    expect(type.body).toMatchObject({ errorcode: 420 });
    const log = await admin.get('/api/auditlog').query({ limit: 100 });
    expect(JSON.stringify(log.body)).not.toContain('X509Certificate');
  });
});
