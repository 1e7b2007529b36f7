import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNEX } from '../../../src/platform/tokens';
import { createRemoteJWKSet, decodeProtectedHeader, errors, importJWK, jwtVerify, type JWK } from 'jose';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback-server';
import { competenceIdsByTitle } from '../competences/catalogue-ids';
import { foreignCourse } from './certificate-support';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let server: LoopbackServer;
let hse: number;
let ola: Awaited<ReturnType<typeof asAcme>>;
let kari: Awaited<ReturnType<typeof asAcme>>;
let per: Awaited<ReturnType<typeof asAcme>>;
let admin: Awaited<ReturnType<typeof asAcme>>;

/** The tenant's key set as a verifier fetches it: over HTTP from the running app, by the tenant's host name. */
const remoteKeys = (host: string) =>
  createRemoteJWKSet(new URL(`http://127.0.0.1:${server.port}/.well-known/jwks.json`), { headers: { host }, cacheMaxAge: 0, cooldownDuration: 0 });

const credential = async (api: typeof ola, competenceId: number, query = '') => {
  const res = await api.get(`/api/personcompetences/${competenceId}/credential${query}`);
  expect(res.status, res.text).toBe(200);
  expect(res.headers['content-type']).toBe('application/vc+jwt');
  return res.text;
};

beforeAll(async () => {
  t = await createTestApp();
  // dates are read in the tenant's zone: Oslo is an hour ahead of UTC in winter
  const oslo = (doc: any) => void (doc.config = { ...doc.config, 'tenant.timezone': 'Europe/Oslo' });
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme', oslo), importDemoTenant(t, 'globex')]);
  server = await serveOnLoopback(t.app);
  [ola, kari, per, admin] = await Promise.all(['ola', 'kari', 'per', 'admin'].map((u) => asAcme(t, acme.host, u as 'ola')));
  hse = (await competenceIdsByTitle(admin))['HSE basic course'];
  const put = await kari.put(`/api/personcompetences/${hse}`).send({ user_name: 'ola', show_course_diploma: 1, date: '2026-01-10', valid_until: '2099-01-10' });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

describe('GET /api/personcompetences/[competence_id]/credential', () => {
  let jwt: string;

  it("is an Open Badges 3.0 credential as a JWT that jose verifies with the JWKS fetched over HTTP from the tenant's host", async () => {
    jwt = await credential(ola, hse);
    const header = decodeProtectedHeader(jwt);
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'vc+jwt' });
    expect(header.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { payload } = await jwtVerify(jwt, remoteKeys(acme.host), { issuer: `https://${acme.host}/`, typ: 'vc+jwt' });
    expect(payload['@context']).toEqual(['https://www.w3.org/ns/credentials/v2', 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json']);
    expect(payload.type).toEqual(['VerifiableCredential', 'OpenBadgeCredential']);
    expect(payload.issuer).toEqual({ id: `https://${acme.host}/`, type: ['Profile'], name: 'Acme Industries', url: `https://${acme.host}/` });
    // the tenant's zone (Europe/Oslo here): the day begins at 23:00 UTC the day before in winter
    expect(payload.validFrom).toBe('2026-01-09T23:00:00Z');
    expect(payload.validUntil).toBe('2099-01-10T22:59:59Z');
    expect(payload.nbf).toBe(Date.parse('2026-01-09T23:00:00Z') / 1000);
    expect(payload.exp).toBe(Date.parse('2099-01-10T22:59:59Z') / 1000);
    const subject = payload.credentialSubject as any;
    expect(subject.type).toEqual(['AchievementSubject']);
    expect(subject.identifier).toEqual([{ type: 'IdentityObject', identityHash: 'Ola Hansen', identityType: 'name', hashed: false }]);
    expect(subject.achievement).toMatchObject({ id: `https://${acme.host}/api/competences/${hse}`, type: ['Achievement'], name: 'HSE basic course' });
    expect(subject.achievement.criteria.narrative).toContain('HSE basic course');
    expect(subject.achievement.description).toBeTruthy();
    // the verification URL is the credential's id, and it verifies on the tenant's host
    expect(payload.id).toMatch(new RegExp(`^https://${acme.host.replace(/\./g, '\\.')}/verify/[A-Za-z0-9_-]{32}$`));
    expect(payload.jti).toBe(payload.id);
    const code = String(payload.id).split('/').pop();
    const v = await client(t, acme.host).get(`/verify/${code}`).set('Accept', 'application/json');
    expect(v.body.certificates[0]).toMatchObject({ status: 'valid', name: 'Ola Hansen', date: '2026-01-10', valid_until: '2099-01-10' });
  });

  it("is refused after tampering and with another tenant's key set", async () => {
    const [h, p, s] = jwt.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.credentialSubject.identifier[0].identityHash = 'Mallory';
    const forged = [h, Buffer.from(JSON.stringify(claims)).toString('base64url'), s].join('.');
    await expect(jwtVerify(forged, remoteKeys(acme.host))).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
    // globex gets a key of its own with its first credential
    const foreign = await foreignCourse(t, globex, 'homer');
    const homer = client(t, globex.host, await loginCookie(t, globex.host, 'homer', GLOBEX_PASSWORDS.homer));
    const theirs = await credential(homer, foreign);
    await jwtVerify(theirs, remoteKeys(globex.host));
    await expect(jwtVerify(jwt, remoteKeys(globex.host))).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
    // and their key, forced on it under any kid, does not verify acme's signature
    const set = (await client(t, globex.host).get('/.well-known/jwks.json')).body as { keys: JWK[] };
    expect(set.keys).toHaveLength(1);
    await expect(jwtVerify(jwt, await importJWK(set.keys[0], 'EdDSA'))).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });

  it('a rotation signs with a new key and keeps the old one published, so earlier credentials still verify', async () => {
    const before = decodeProtectedHeader(jwt).kid;
    expect((await per.post('/api/credentialkeys/rotate')).status).toBe(403);
    const rotated = await admin.post('/api/credentialkeys/rotate');
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(201);
    const kid = rotated.body.credentialkeys[0].kid;
    expect(kid).not.toBe(before);
    const set = (await client(t, acme.host).get('/.well-known/jwks.json')).body as { keys: JWK[] };
    expect(set.keys.map((k) => k.kid)).toEqual([kid, before]);
    expect(set.keys.every((k) => k.kty === 'OKP' && k.crv === 'Ed25519' && !('d' in k))).toBe(true);
    await jwtVerify(jwt, remoteKeys(acme.host));
    const next = await credential(kari, hse, '?user_name=ola');
    expect(decodeProtectedHeader(next).kid).toBe(kid);
    await jwtVerify(next, remoteKeys(acme.host));
    const listed = await admin.get('/api/credentialkeys');
    expect(listed.body.credentialkeys.map((k: any) => [k.kid, k.active, k.published])).toEqual([
      [kid, true, true],
      [before, false, true],
    ]);
    expect(listed.body.credentialkeys[1].published_until).toBe('2099-01-10T22:59:59.000Z');
    const log = await admin.get('/api/auditlog?type=credential_key.created,credential_key.rotated');
    expect(log.body.auditlog.map((e: any) => e.type).sort()).toEqual(['credential_key.created', 'credential_key.rotated']);
  });

  it('a retired key that signed no credential still valid leaves the key set', async () => {
    // no credential of the current key so far ends after now: only unexpired ones keep a retired key
    const res = await admin.post('/api/credentialkeys/rotate');
    const kids = (await client(t, acme.host).get('/.well-known/jwks.json')).body.keys.map((k: JWK) => k.kid);
    // both earlier keys signed credentials valid until 2099: still there, beside the new one
    expect(kids).toHaveLength(3);
    expect(kids[0]).toBe(res.body.credentialkeys[0].kid);
    const third = await admin.post('/api/credentialkeys/rotate');
    const after = (await client(t, acme.host).get('/.well-known/jwks.json')).body.keys.map((k: JWK) => k.kid);
    // the key made by the second rotation signed nothing: it is gone once retired
    expect(after).toEqual([third.body.credentialkeys[0].kid, ...kids.slice(1)]);
  });

  it('a key without its private half (an archive exported without secrets) is retired and replaced on the next credential', async () => {
    const knex = t.container.resolve<Knex>(KNEX);
    const active = await knex.withSchema(acme.schema).table('credential_keys').whereNull('retired_at').update({ private_key: null }).returning('kid');
    const jwt2 = await credential(ola, hse);
    const kid = decodeProtectedHeader(jwt2).kid;
    expect(kid).not.toBe(active[0].kid);
    await jwtVerify(jwt2, remoteKeys(acme.host));
    const log = await admin.get('/api/auditlog?type=credential_key.created');
    expect(log.body.auditlog[0]).toMatchObject({ subject: kid, details: { replaced: active[0].kid } });
  });

  it("access as for the certificate: 403 for a stranger, 404 for another tenant's competence, 401 anonymous", async () => {
    expect((await per.get(`/api/personcompetences/${hse}/credential?user_name=ola`)).status).toBe(403);
    expect((await ola.get(`/api/personcompetences/987654/credential`)).status).toBe(404);
    expect((await client(t, acme.host).get(`/api/personcompetences/${hse}/credential`)).status).toBe(401);
    expect((await client(t, 'nobody.test').get('/.well-known/jwks.json')).status).toBe(404);
  });
});
