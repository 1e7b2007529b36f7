import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Request } from 'express';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../../src/platform/tenant-scope/request-scope';
import { TenantStore } from '../../../src/platform/tenant-scope/tenant-store';
import { SwtAuthScheme } from '../../../src/flows/identity/swt-auth-scheme';
import { ACME_SWT, GLOBEX_SWT, inAnHour, swtToken } from './swt-test-token';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
});
afterAll(async () => t?.close());

const swt = (token: string) => `SWT ${token}`;
const acmeToken = (pairs: Record<string, string | number>) => swtToken(ACME_SWT.secret, { Issuer: ACME_SWT.issuer, ExpiresOn: inAnHour(), ...pairs });

/** Who the SWT scheme says the caller is (the API has no "who am I" call yet). */
async function principalFor(tenant: DemoTenant, token: string) {
  const t2 = (await t.container.resolve(TenantResolver).byTenantId(tenant.tenantId))!;
  const scope = { tenant: t2, container: openTenantScope(t.container, t2), principal: null };
  const req = { headers: { authorization: swt(token) } } as unknown as Request;
  return new SwtAuthScheme().authenticate(req, scope);
}

const get = (tenant: DemoTenant, token: string) => client(t, tenant.host).get('/api/configitems/cors.origins').set('Authorization', swt(token));

describe('Authorization: SWT on acme', () => {
  it("a token for ola signed with acme's secret logs him in for a user route", async () => {
    const res = await get(acme, acmeToken({ username: 'ola' }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.configitems[0].value).toEqual(['http://portal.acme.localhost:5173', 'https://portal.acme.example']);
    expect(await principalFor(acme, acmeToken({ username: 'ola' }))).toMatchObject({ userName: 'ola', via: 'swt', superuser: false });
  });

  it('identifies ola by user_name, by external_person_id and by person_id alike', async () => {
    const byName = await principalFor(acme, acmeToken({ user_name: 'ola' }));
    const byExtern = await principalFor(acme, acmeToken({ external_person_id: 'HR-4711' }));
    expect(byExtern).toMatchObject({ userName: 'ola', personId: byName!.personId });
    const byId = await principalFor(acme, acmeToken({ person_id: byName!.personId }));
    expect(byId).toMatchObject({ userName: 'ola' });
  });

  it('accepts a token without ExpiresOn (optional while api.oauth.require_expires_on is off) and a raw base64 signature', async () => {
    const token = swtToken(ACME_SWT.secret, { Issuer: ACME_SWT.issuer, username: 'ola' });
    expect((await get(acme, token)).status).toBe(200);
    const rawSignature = token.replace(/HMACSHA256=(.*)$/, (_, sig: string) => `HMACSHA256=${decodeURIComponent(sig)}`);
    expect((await get(acme, rawSignature)).status).toBe(200);
  });

  it('refuses a token without Issuer when api.oauth.issuer is set (issue 40), naming the check', async () => {
    const res = await get(acme, swtToken(ACME_SWT.secret, { ExpiresOn: inAnHour(), username: 'ola' }));
    expect([res.status, res.body.message]).toEqual([401, expect.stringMatching(/\(issuer\).*no Issuer/)]);
  });

  it('refuses a tampered token with 401 naming the signature check', async () => {
    const token = acmeToken({ username: 'ola' }).replace('username=ola', 'username=admin');
    const res = await get(acme, token);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ valid: false, errorcode: 401 });
    expect(res.body.message).toContain('signature');
    expect(res.body.message).not.toContain(ACME_SWT.secret);
  });

  it('refuses an expired token, a foreign issuer and an unknown user, each naming its check', async () => {
    const expired = await get(acme, acmeToken({ username: 'ola', ExpiresOn: Math.floor(Date.now() / 1000) - 3600 }));
    expect([expired.status, expired.body.message]).toEqual([401, expect.stringContaining('expired')]);
    const issuer = await get(acme, acmeToken({ username: 'ola', Issuer: 'https://evil.example' }));
    expect([issuer.status, issuer.body.message]).toEqual([401, expect.stringContaining('Issuer')]);
    const unknown = await get(acme, acmeToken({ username: 'nobody' }));
    expect([unknown.status, unknown.body.message]).toEqual([401, expect.stringContaining('no user of this tenant')]);
    const nameless = await get(acme, acmeToken({ role: 'x' }));
    expect([nameless.status, nameless.body.message]).toEqual([401, expect.stringContaining('names no user')]);
  });

  it("refuses globex's token on acme and an Authorization header that is not a token", async () => {
    const foreign = await get(acme, swtToken(GLOBEX_SWT.secret, { username: 'admin' }));
    expect(foreign.status).toBe(401);
    const empty = await client(t, acme.host).get('/api/configitems/cors.origins').set('Authorization', 'SWT');
    expect([empty.status, empty.body.message]).toEqual([401, expect.stringContaining('SWT <token>')]);
  });

  it('an invalid SWT header wins over a valid session cookie', async () => {
    const login = await client(t, acme.host).post('/api/login').send({ user_name: 'admin', password: 'Acme-Admin-Pass-1', login: 1 });
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    const res = await client(t, acme.host, cookie).get('/api/configitems/cors.origins').set('Authorization', swt('username=admin&HMACSHA256=AAAA'));
    expect(res.status).toBe(401);
  });
});

describe('Authorization: SWT on globex', () => {
  const globexToken = (pairs: Record<string, string | number>) => swtToken(GLOBEX_SWT.secret, { Issuer: GLOBEX_SWT.issuer, ...pairs });

  it("uses globex's own parameter names uid, pid and employee_number", async () => {
    const byUid = await principalFor(globex, globexToken({ uid: 'homer' }));
    expect(byUid).toMatchObject({ userName: 'homer', via: 'swt' });
    expect(await principalFor(globex, globexToken({ pid: byUid!.personId }))).toMatchObject({ userName: 'homer' });
    expect(await principalFor(globex, globexToken({ employee_number: 'G-742' }))).toMatchObject({ userName: 'homer' });
    expect((await get(globex, globexToken({ uid: 'homer' }))).status).toBe(200);
  });

  it("refuses acme's secret on globex, and acme's user ola who does not exist there", async () => {
    expect((await get(globex, swtToken(ACME_SWT.secret, { uid: 'homer' }))).status).toBe(401);
    const ola = await get(globex, globexToken({ uid: 'ola' }));
    expect([ola.status, ola.body.message]).toEqual([401, expect.stringContaining('no user')]);
  });

  it('a base64 secret_encoding turns the configured secret into its decoded bytes', async () => {
    const keyB64 = Buffer.from('globex-binary-key-material-0001').toString('base64');
    await t.container.resolve(TenantStore).setConfigItem(globex.tenantId, 'api.oauth.secret', keyB64, 'test');
    await t.container.resolve(TenantStore).setConfigItem(globex.tenantId, 'api.oauth.secret_encoding', 'base64', 'test');
    await t.container.resolve(TenantResolver).publishChange(globex.tenantId);
    expect((await get(globex, globexToken({ uid: 'homer' }))).status).toBe(401);
    expect((await get(globex, swtToken('globex-binary-key-material-0001', { Issuer: 'globex-hr', uid: 'homer' }))).status).toBe(200);
  });
});
