import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, asAcme, loginCookie } from '../../support/login';
import { KNEX } from '../../../src/platform/tokens';
import { ACME_SWT, inAnHour, swtToken } from '../../identity/sso/swt-test-token';

/**
 * A deactivation ends access at once: the open session's next request is a 401 (on the API process
 * that served the deactivation and on a second one sharing the database and Redis), login says the
 * account is deactivated, sign-on hashes and SWT tokens for the person are refused. Reactivation
 * brings login back with the same password.
 */

let t: TestApp;
let t2: TestApp;
let acme: DemoTenant;
let knex: Knex;
let admin: Awaited<ReturnType<typeof asAcme>>;

beforeAll(async () => {
  t = await createTestApp();
  // a second API process: its own principal cache and tenant data cache, the same PostgreSQL and Redis
  t2 = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  knex = t.container.resolve(KNEX);
  admin = await asAcme(t, acme.host, 'admin');
});
afterAll(async () => {
  await t2?.close();
  await t?.close();
});

const on = (app: TestApp, cookie?: string) => client(app, acme.host, cookie);
const login = (userName: string, password: string) => on(t).post('/api/login').send({ user_name: userName, password, login: 1 });
const swt = (userName: string) => `SWT ${swtToken(ACME_SWT.secret, { Issuer: ACME_SWT.issuer, ExpiresOn: inAnHour(), username: userName })}`;

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

async function deactivate(userName: string) {
  const res = await admin.put(`/api/persons/${userName}/deactivate`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}
async function reactivate(userName: string) {
  const res = await admin.put(`/api/persons/${userName}/reactivate`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('a deactivated person', () => {
  it('loses an open session on the next request, on this API process and on another one', async () => {
    const cookie = await loginCookie(t, acme.host, 'ola', ACME_PASSWORDS.ola);
    // both processes have ola's principal cached
    for (const app of [t, t2]) expect((await on(app, cookie).get('/api/person')).status).toBe(200);
    await deactivate('ola');
    for (const app of [t, t2]) {
      const res = await on(app, cookie).get('/api/person');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ valid: false, errorcode: 401 });
    }
    await reactivate('ola');
    // the ended session stays ended: reactivation restores login, not sessions
    expect((await on(t, cookie).get('/api/person')).status).toBe(401);
  });

  it('is refused by a session that outlived the deactivation (any write path: SQL) on both processes, through the principal_changed notice', async () => {
    const cookie = await loginCookie(t, acme.host, 'nils', ACME_PASSWORDS.nils);
    for (const app of [t, t2]) expect((await on(app, cookie).get('/api/person')).status).toBe(200);
    // no API call: the sessions are not ended, only the cached principals can tell
    await knex.withSchema(acme.schema).table('persons').where({ user_name: 'nils' }).update({ deactivated_at: new Date() });
    for (const app of [t, t2]) {
      await eventually('nils is refused', async () => (await on(app, cookie).get('/api/person')).status === 401);
      expect((await on(app, cookie).get('/api/person')).body.message).toContain('the account of nils is deactivated');
    }
    await knex.withSchema(acme.schema).table('persons').where({ user_name: 'nils' }).update({ deactivated_at: null });
    for (const app of [t, t2]) await eventually('nils is back', async () => (await on(app, cookie).get('/api/person')).status === 200);
  });

  it('cannot log in: 401 naming the deactivation, only with the right password; reactivated, the same password works', async () => {
    await deactivate('siri');
    const res = await login('siri', ACME_PASSWORDS.siri);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ valid: false, errorcode: 401 });
    expect(res.body.message).toContain('the account of siri is deactivated');
    expect(res.headers['set-cookie']?.toString() ?? '').not.toContain('tg-visit=');
    // a wrong password tells nothing of the account's state
    const wrong = await login('siri', 'not-her-password');
    expect(wrong.body.message).toBe('wrong user name or password');
    const log = await admin.get('/api/auditlog?type=login.failed&user_name=siri');
    expect(log.body.auditlog.map((e: any) => e.details.reason)).toEqual(['wrong password', 'deactivated']);

    await reactivate('siri');
    const again = await login('siri', ACME_PASSWORDS.siri);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  });

  it('cannot use a sign-on hash issued before the deactivation (validate, validate_auth_token)', async () => {
    const first = (await login('per', ACME_PASSWORDS.per)).body.login[0];
    const second = (await login('per', ACME_PASSWORDS.per)).body.login[0];
    await deactivate('per');
    const validate = await on(t).get('/api/validate').query({ user_name: 'per', hash: first.hash, forward_url: 'https://portal.acme.example/' }).redirects(0);
    expect(validate.status).toBe(401);
    expect(validate.headers.location).toBeUndefined();
    expect(validate.body.message).toContain('the account of per is deactivated');
    const token = await on(t).get('/api/validate_auth_token').query({ user_id: second.person_id, hash: second.hash });
    expect(token.status).toBe(401);
    expect(token.body.message).toContain('the account of per is deactivated');
    await reactivate('per');
  });

  it('is refused over SWT (401 naming it), on both processes, and accepted again once reactivated', async () => {
    const get = (app: TestApp) => on(app).get('/api/person').set('Authorization', swt('expired'));
    for (const app of [t, t2]) expect((await get(app)).status).toBe(200);
    await deactivate('expired');
    const res = await get(t);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('SWT token refused (user): the account of expired is deactivated');
    // the other process learns of it from the change notice of persons
    await eventually('the other process refuses the token', async () => (await get(t2)).status === 401);
    // the admin page's checker says so too
    const check = await admin.post('/api/configitems/api.oauth.secret/check').send({ user_name: 'expired' });
    expect(check.body.checks.find((c: any) => c.check === 'user')).toEqual({ check: 'user', ok: false, detail: 'the account of expired is deactivated' });
    await reactivate('expired');
    expect((await get(t)).status).toBe(200);
    await eventually('the other process accepts the token', async () => (await get(t2)).status === 200);
  });

  it('keeps no one else out: the other persons of the tenant log in as before', async () => {
    expect((await login('kari', ACME_PASSWORDS.kari)).status).toBe(200);
  });
});
