import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS } from '../../support/login';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
});
afterAll(async () => t?.close());

async function login(userName: keyof typeof ACME_PASSWORDS) {
  const res = await client(t, acme.host).post('/api/login').send({ user_name: userName, password: ACME_PASSWORDS[userName], login: 1 });
  expect(res.status).toBe(200);
  return res.body.login[0] as { hash: string; person_id: number };
}

const PORTAL = 'https://portal.acme.example/courses?x=1';
const validate = (q: Record<string, string>) => client(t, acme.host).get('/api/validate').query(q).redirects(0);

describe('GET /api/validate', () => {
  it('turns the login hash into a session and redirects to portal.acme.example; a second use fails', async () => {
    const { hash } = await login('ola');
    const res = await validate({ user_name: 'ola', hash, forward_url: PORTAL });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(PORTAL);
    const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('tg-visit='))!;
    expect(cookie).toContain('HttpOnly');
    const session = cookie.split(';')[0];
    expect((await client(t, acme.host, session).get('/api/configitems/cors.origins')).status).toBe(200);

    const again = await validate({ user_name: 'ola', hash, forward_url: PORTAL });
    expect(again.status).toBe(401);
    expect(again.headers.location).toBeUndefined();
    expect(again.body).toMatchObject({ valid: false, errorcode: 401 });
    expect(again.body.message).toContain('already used');
  });

  it('names each missing parameter with 419', async () => {
    for (const missing of ['user_name', 'hash', 'forward_url']) {
      const q: Record<string, string> = { user_name: 'ola', hash: 'h'.repeat(32), forward_url: PORTAL };
      delete q[missing];
      const res = await validate(q);
      expect(res.body).toMatchObject({ valid: false, errorcode: 419 });
      expect(res.body.message).toContain(missing);
    }
  });

  it('refuses a forward_url outside signon.forward_url_hosts with 420 and leaves the hash usable', async () => {
    const { hash } = await login('ola');
    for (const url of ['https://evil.example/', 'javascript:alert(1)', '/relative', 'https://portal.acme.example.evil.example/', 'https://x@evil.example/']) {
      const res = await validate({ user_name: 'ola', hash, forward_url: url });
      expect(res.status, url).toBe(400);
      expect(res.body, url).toMatchObject({ valid: false, errorcode: 420 });
      expect(res.headers.location).toBeUndefined();
    }
    const ok = await validate({ user_name: 'ola', hash, forward_url: 'http://portal.acme.localhost:5173/' });
    expect(ok.status).toBe(302);
  });

  it('a hash issued to ola does not sign on kari, and is used up by the attempt', async () => {
    const { hash } = await login('ola');
    const wrong = await validate({ user_name: 'kari', hash, forward_url: PORTAL });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect((await validate({ user_name: 'ola', hash, forward_url: PORTAL })).status).toBe(401);
  });

  it("an acme hash means nothing on globex's host, and is not used up there", async () => {
    const { hash, person_id } = await login('admin');
    const onGlobex = await client(t, globex.host).get('/api/validate_auth_token').query({ user_id: person_id, hash });
    expect(onGlobex.status).toBe(401);
    const ownHost = await validate({ user_name: 'admin', hash, forward_url: PORTAL });
    expect(ownHost.status).toBe(302);
  });

  it('an unknown hash is a 401 error object', async () => {
    const res = await validate({ user_name: 'ola', hash: 'A'.repeat(32), forward_url: PORTAL });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ valid: false, errorcode: 401, message: 'the sign-on hash is unknown, expired (valid 30 seconds) or already used' });
  });
});

describe('GET /api/validate_auth_token', () => {
  it('answers valid for the person the hash was issued to, once', async () => {
    const { hash, person_id } = await login('siri');
    const res = await client(t, acme.host).get('/api/validate_auth_token').query({ user_id: person_id, hash });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, message: `the token is valid for user_id ${person_id}` });
    expect(res.headers['set-cookie']).toBeUndefined();
    const again = await client(t, acme.host).get('/api/validate_auth_token').query({ user_id: person_id, hash });
    expect(again.body).toMatchObject({ valid: false, errorcode: 401 });
  });

  it('answers invalid for another user_id or an unknown hash, and 419/420 for bad parameters', async () => {
    const { hash, person_id } = await login('siri');
    const other = await client(t, acme.host)
      .get('/api/validate_auth_token')
      .query({ user_id: person_id + 1, hash });
    expect(other.status).toBe(401);
    expect(other.body).toEqual({ valid: false, errorcode: 401, message: 'the sign-on hash was not issued to this user_id' });
    expect((await client(t, acme.host).get('/api/validate_auth_token').query({ hash })).body.errorcode).toBe(419);
    expect((await client(t, acme.host).get('/api/validate_auth_token').query({ user_id: 'x', hash })).body.errorcode).toBe(420);
  });
});
