import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../../support/login';
import { KNEX, REDIS } from '../../../src/platform/tokens';
import { tenantKeyPrefix } from '../../../src/platform/redis/redis-keys';

let t: TestApp;
/** TRUST_PROXY=1: one reverse proxy in front, which appends the client it saw to X-Forwarded-For. */
let proxied: TestApp;
let acme: DemoTenant;
let acme2: DemoTenant;

beforeAll(async () => {
  [t, proxied] = await Promise.all([createTestApp(), createTestApp({ TRUST_PROXY: '1' })]);
  [acme, acme2] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'acme')]);
});
afterAll(async () => Promise.all([t?.close(), proxied?.close()]));

const login = (app: TestApp, host: string, userName: string, password: string, forwardedFor?: string) => {
  const r = client(app, host).post('/api/login');
  if (forwardedFor) r.set('X-Forwarded-For', forwardedFor);
  return r.send({ user_name: userName, password, login: 1 });
};

async function failTimes(n: number, app: TestApp, host: string, userName: string, forwardedFor?: (i: number) => string) {
  for (let i = 0; i < n; i++) {
    const res = await login(app, host, userName, 'wrong-password', forwardedFor?.(i));
    expect(res.status, JSON.stringify(res.body)).toBe(401);
  }
}

function expectThrottled(res: { status: number; body: any; headers: any }) {
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({ valid: false, errorcode: 429 });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  return retryAfter;
}

async function auditRows(tenant: DemoTenant, subject: string) {
  const knex = t.container.resolve<Knex>(KNEX);
  return knex.withSchema(tenant.schema).table('audit_log').where({ subject }).orderBy('audit_id');
}

describe('login throttling', () => {
  it('the 6th wrong password from one address gets 429 with Retry-After, and so does the right one', async () => {
    await failTimes(5, t, acme.host, 'ola');
    const sixth = await login(t, acme.host, 'ola', 'wrong-password');
    expect(expectThrottled(sixth)).toBeLessThanOrEqual(15 * 60);
    expect(sixth.body.message).toContain('too many failed logins');
    expectThrottled(await login(t, acme.host, 'ola', ACME_PASSWORDS.ola));
    // per tenant: the same user name on another tenant is not affected
    await loginCookie(t, acme2.host, 'ola', ACME_PASSWORDS.ola);
    const events = (await auditRows(acme, 'ola')).map((r) => r.type);
    expect(events.filter((e) => e === 'login.failed')).toHaveLength(5);
    expect(events.filter((e) => e === 'login.throttled')).toHaveLength(2);
    expect(JSON.stringify(await auditRows(acme, 'ola'))).not.toContain('wrong-password');
  });

  it('throttles an unknown user name exactly like a known one', async () => {
    await failTimes(5, t, acme.host, 'no-such-person');
    const sixth = await login(t, acme.host, 'no-such-person', 'x');
    expectThrottled(sixth);
    expect(sixth.body.message).toBe('too many failed logins for this user name from this address; try again later');
  });

  it('a successful login clears the counter of its user name and address', async () => {
    await failTimes(4, t, acme.host, 'siri');
    await loginCookie(t, acme.host, 'siri', ACME_PASSWORDS.siri);
    await failTimes(5, t, acme.host, 'siri');
    expectThrottled(await login(t, acme.host, 'siri', 'wrong-password'));
    const [succeeded] = (await auditRows(acme, 'siri')).filter((r) => r.type === 'login.succeeded');
    expect(succeeded).toMatchObject({ actor: 'siri', subject: 'siri' });
    expect(succeeded.ip).toMatch(/127\.0\.0\.1|::1/);
  });

  it('with TRUST_PROXY=1, the 21st failure for one user name from 21 client addresses gets 429', async () => {
    await failTimes(20, proxied, acme.host, 'per', (i) => `198.51.100.${i + 1}`);
    const res = await login(proxied, acme.host, 'per', ACME_PASSWORDS.per, '198.51.100.200');
    expectThrottled(res);
    expect(res.body.message).toBe('too many failed logins for this user name; try again later');
    const ips = new Set((await auditRows(acme, 'per')).filter((r) => r.type === 'login.failed').map((r) => r.ip));
    expect(ips.size).toBe(20);
  });

  it('with TRUST_PROXY=1, rotating the X-Forwarded-For entries the client sends itself does not help', async () => {
    // The proxy appends the address it saw (203.0.113.7); whatever the client put before it is ignored.
    await failTimes(5, proxied, acme.host, 'nils', (i) => `10.9.${i}.1, 203.0.113.7`);
    expectThrottled(await login(proxied, acme.host, 'nils', ACME_PASSWORDS.nils, '10.200.0.1, 203.0.113.7'));
  });

  it('keeps its counters under the tenant key prefix, with the user name hashed', async () => {
    const redis = t.container.resolve(REDIS);
    const keys = await redis.keys(`${tenantKeyPrefix({ id: acme.tenantId }, redis)}rl:login:*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join(' ')).not.toMatch(/ola|siri|no-such-person/);
  });

  it('counts old_password checks in PUT /api/persons against the same limits', async () => {
    const cookie = await loginCookie(t, acme.host, 'kari', ACME_PASSWORDS.kari);
    const put = (old: string) =>
      client(t, acme.host, cookie)
        .put('/api/persons/kari')
        .send({ person_data: { password: 'Kari-New-Pass-2' }, password_match: 'Kari-New-Pass-2', old_password: old });
    for (let i = 0; i < 5; i++) expect((await put('not-it')).body).toMatchObject({ errorcode: 420, parameter: 'old_password' });
    expectThrottled(await put(ACME_PASSWORDS.kari));
    expectThrottled(await login(t, acme.host, 'kari', ACME_PASSWORDS.kari));
    const throttled = (await auditRows(acme, 'kari')).filter((r) => r.type === 'login.throttled');
    expect(throttled.map((r) => r.details.check)).toEqual(['old_password', 'login']);
  });

  it('logout is recorded', async () => {
    const cookie = await loginCookie(t, acme2.host, 'siri', ACME_PASSWORDS.siri);
    expect((await client(t, acme2.host, cookie).post('/api/logout')).body.message).toBe('logged out');
    const types = (await auditRows(acme2, 'siri')).map((r) => r.type);
    expect(types).toEqual(['login.succeeded', 'logout']);
  });

  it('answers 503 in the envelope when Redis is down', async () => {
    const down = await createTestApp();
    try {
      down.container.resolve(REDIS).disconnect();
      const res = await login(down, acme.host, 'admin', ACME_PASSWORDS.admin);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ valid: false, errorcode: 503 });
    } finally {
      await down.close().catch(() => {});
    }
  });
});
