import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, GLOBEX_PASSWORDS, loginCookie } from '../../support/login';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
});
afterAll(async () => t?.close());

describe('POST /api/login', () => {
  it('logs admin in on acme and globex with their own passwords', async () => {
    const res = await client(t, acme.host)
      .post('/api/login')
      .type('form')
      .send({ user_name: 'admin', password: ACME_PASSWORDS.admin, login: '1', forward_url: 'https://x.example/' });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(true);
    const [login] = res.body.login;
    expect(login.session_id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(login.hash).toBeTruthy();
    expect(login.forward_url).toBe('https://x.example/');
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toContain(`tg-visit=${login.session_id}`);
    expect(setCookie).toContain('HttpOnly');
    await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin);
  });

  it("refuses acme's admin password on globex, the same way as an unknown user", async () => {
    const wrong = await client(t, globex.host).post('/api/login').send({ user_name: 'admin', password: ACME_PASSWORDS.admin, login: 1 });
    const unknown = await client(t, globex.host).post('/api/login').send({ user_name: 'nobody', password: 'x', login: 1 });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toEqual({ valid: false, errorcode: 401, message: 'wrong user name or password' });
  });

  it('names a missing parameter (419) and a malformed one (420)', async () => {
    const missing = await client(t, acme.host).post('/api/login').send({ user_name: 'admin', login: 1 });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ valid: false, errorcode: 419 });
    expect(missing.body.message).toContain('password');
    const badLogin = await client(t, acme.host).post('/api/login').send({ user_name: 'admin', password: 'x', login: 2 });
    expect(badLogin.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(badLogin.body.message).toContain('login');
    const badJson = await client(t, acme.host).post('/api/login').set('Content-Type', 'application/json').send('{"user_name":');
    expect(badJson.status).toBe(400);
    expect(badJson.body).toMatchObject({ valid: false, errorcode: 420 });
  });

  it('a session cookie works on its own tenant only', async () => {
    const cookie = await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin);
    const own = await client(t, acme.host, cookie).get('/api/configitems/cors.origins');
    expect(own.status).toBe(200);
    expect(own.body.configitems[0]).toMatchObject({
      config_item_id: 'cors.origins',
      value: ['http://portal.acme.localhost:5173', 'https://portal.acme.example'],
    });
    const other = await client(t, globex.host, cookie).get('/api/configitems/cors.origins');
    expect(other.status).toBe(401);
  });

  it('logout ends the session', async () => {
    const cookie = await loginCookie(t, acme.host, 'ola', ACME_PASSWORDS.ola);
    const out = await client(t, acme.host, cookie).get('/api/logout?forward_url=https%3A%2F%2Fportal.acme.example%2F');
    expect(out.body).toEqual({ valid: true, message: 'logged out', logout: [{ forward_url: 'https://portal.acme.example/' }] });
    const after = await client(t, acme.host, cookie).get('/api/configitems/cors.origins');
    expect(after.status).toBe(401);
  });
});

describe('config items', () => {
  it('refuses the SWT secret and unknown items', async () => {
    const cookie = await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin);
    const secret = await client(t, acme.host, cookie).get('/api/configitems/api.oauth.secret');
    expect(secret.status).toBe(403);
    expect(JSON.stringify(secret.body)).not.toContain('acme-swt-shared-secret');
    expect((await client(t, acme.host, cookie).get('/api/configitems/nope')).body.errorcode).toBe(404);
    const list = await client(t, acme.host, cookie).get('/api/configitems?config_item_ids=mail.from,sms.from');
    expect(list.body.configitems).toEqual([
      { config_item_id: 'mail.from', value: 'Acme Training <training@acme.example>' },
      { config_item_id: 'sms.from', value: '+4790000001' },
    ]);
    const none = await client(t, acme.host, cookie).get('/api/configitems');
    expect(none.body.errorcode).toBe(419);
  });
});
