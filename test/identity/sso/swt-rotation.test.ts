import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_SWT, inAnHour, swtToken } from './swt-test-token';
import { verifySwt, signSwt, SwtRejected } from '../../../src/identity/sso/swt-token';

const NEW_SECRET = 'acme-swt-new-secret-after-rotation-42';
let t: TestApp;
/** acme with the new key as secret and the old one as previous_secret, ExpiresOn required, tokens at most 1 hour. */
let rotated: DemoTenant;
let plain: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  [rotated, plain] = await Promise.all([
    importDemoTenant(t, 'acme', (doc) => {
      doc.config['api.oauth.secret'] = NEW_SECRET;
      doc.config['api.oauth.previous_secret'] = ACME_SWT.secret;
      doc.config['api.oauth.require_expires_on'] = true;
      doc.config['api.oauth.max_token_lifetime_seconds'] = 3600;
    }),
    importDemoTenant(t, 'acme'),
  ]);
});
afterAll(async () => t?.close());

const now = () => Math.floor(Date.now() / 1000);
const get = (tenant: DemoTenant, token: string) => client(t, tenant.host).get('/api/configitems/cors.origins').set('Authorization', `SWT ${token}`);
const token = (secret: string, pairs: Record<string, string | number>) => swtToken(secret, { Issuer: ACME_SWT.issuer, username: 'ola', ...pairs });

describe('SWT key rotation and token lifetime', () => {
  it('accepts tokens signed with the current and with the previous secret, refuses any other', async () => {
    expect((await get(rotated, token(NEW_SECRET, { ExpiresOn: now() + 600 }))).status).toBe(200);
    expect((await get(rotated, token(ACME_SWT.secret, { ExpiresOn: now() + 600 }))).status).toBe(200);
    const other = await get(rotated, token('some-other-secret-0123456789', { ExpiresOn: now() + 600 }));
    expect(other.status).toBe(401);
    expect(other.body.message).toContain('(signature)');
  });

  it('require_expires_on refuses a token without ExpiresOn, naming the check', async () => {
    const res = await get(rotated, token(NEW_SECRET, {}));
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/\(expiry\).*api\.oauth\.require_expires_on/);
    // off by default, as the spec allows tokens without it
    expect((await get(plain, token(ACME_SWT.secret, {}))).status).toBe(200);
  });

  it('refuses a token whose ExpiresOn lies beyond the maximum lifetime, naming the check', async () => {
    const res = await get(rotated, token(NEW_SECRET, { ExpiresOn: now() + 7200 }));
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/\(lifetime\).*api\.oauth\.max_token_lifetime_seconds/);
    // the default is one day
    expect((await get(plain, token(ACME_SWT.secret, { ExpiresOn: inAnHour() + 3600 }))).status).toBe(200);
    expect((await get(plain, token(ACME_SWT.secret, { ExpiresOn: now() + 2 * 86400 }))).body.message).toContain('(lifetime)');
  });

  it('verifySwt: the lifetime allows the clock skew and no more', () => {
    const key = Buffer.from('k'.repeat(20));
    const at = (expiresOn: number) =>
      signSwt(
        [
          ['ExpiresOn', String(expiresOn)],
          ['username', 'ola'],
        ],
        key,
      );
    const checks = { secret: 'k'.repeat(20), encoding: 'text' as const, issuer: null, clockSkewSeconds: 60, maxLifetimeSeconds: 3600, nowSeconds: 1_000_000 };
    expect(verifySwt(at(1_000_000 + 3660), checks).get('username')).toBe('ola');
    expect(() => verifySwt(at(1_000_000 + 3661), checks)).toThrow(SwtRejected);
  });
});
