import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { loginCookie, ACME_PASSWORDS } from '../../support/login';
import { ACME_SWT, inAnHour, swtToken } from '../sso/swt-test-token';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let cookie: string;

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  cookie = await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin);
});
afterAll(async () => t?.close());

/** A harmless write with admin's session cookie: admin updates their own job title. */
const write = (headers: Record<string, string>, host = acme.host) => {
  const r = client(t, host, cookie).put('/api/persons/admin');
  for (const [k, v] of Object.entries(headers)) r.set(k, v);
  return r.send({ person_data: { jobtitle: 'Administrator' } });
};

describe('cross-site writes with the session cookie', () => {
  it('refuses a PUT from a foreign Origin with 403 in the envelope', async () => {
    const res = await write({ Origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ valid: false, errorcode: 403 });
    expect(res.body.message).toContain('cross-site request refused');
  });

  it("refuses another tenant's host as Origin, a null Origin, and a foreign Referer when Origin is absent", async () => {
    expect((await write({ Origin: `http://${globex.host}` })).status).toBe(403);
    expect((await write({ Origin: 'null' })).status).toBe(403);
    expect((await write({ Referer: 'https://evil.example/page?x=1' })).status).toBe(403);
    // same host name on another port is another site
    expect((await write({ Origin: `http://${acme.host}:8081` })).status).toBe(403);
  });

  it('lets through an origin in cors.origins, the tenant host itself, and a request without Origin or Referer', async () => {
    expect((await write({ Origin: 'https://portal.acme.example' })).status).toBe(200);
    expect((await write({ Origin: `http://${acme.host}` })).status).toBe(200);
    expect((await write({ Origin: `https://${acme.host}` })).status).toBe(200);
    expect((await write({ Referer: `http://${acme.host}/admin` })).status).toBe(200);
    expect((await write({ Origin: `http://${acme.host}:3000` }, `${acme.host}:3000`)).status).toBe(200);
    expect((await write({})).status).toBe(200);
  });

  it('lets SWT requests through from any origin (no ambient credentials)', async () => {
    const token = swtToken(ACME_SWT.secret, { Issuer: ACME_SWT.issuer, ExpiresOn: inAnHour(), username: 'admin' });
    const res = await client(t, acme.host)
      .put('/api/persons/admin')
      .set('Authorization', `SWT ${token}`)
      .set('Origin', 'https://evil.example')
      .send({ person_data: { jobtitle: 'Administrator' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('does not stop a GET from a foreign Origin (reads are what CORS protects)', async () => {
    const res = await client(t, acme.host, cookie).get('/api/configitems/cors.origins').set('Origin', 'https://evil.example');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('POST /api/logout ends the session like GET', async () => {
    const own = await loginCookie(t, acme.host, 'ola', ACME_PASSWORDS.ola);
    const out = await client(t, acme.host, own).post('/api/logout').set('Origin', `http://${acme.host}`);
    expect(out.body).toEqual({ valid: true, message: 'logged out', logout: [{}] });
    expect((await client(t, acme.host, own).get('/api/configitems/cors.origins')).status).toBe(401);
  });
});

describe('login CSRF (issue 40): POST /api/login from a browser on another site', () => {
  const login = (headers: Record<string, string>, host = acme.host) => {
    const r = client(t, host).post('/api/login');
    for (const [k, v] of Object.entries(headers)) r.set(k, v);
    return r.send({ user_name: 'ola', password: ACME_PASSWORDS.ola, login: 1 });
  };

  it('is refused with 403 in the envelope and opens no session: a foreign Origin, another tenant, a null Origin, a foreign Referer', async () => {
    for (const headers of <Record<string, string>[]>[
      { Origin: 'https://evil.example' },
      { Origin: `http://${globex.host}` },
      { Origin: 'null' },
      { Referer: 'https://evil.example/login-trap' },
    ]) {
      const res = await login(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body).toMatchObject({ valid: false, errorcode: 403, message: expect.stringContaining('cross-site login refused') });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('works without Origin (scripts and servers), from the tenant itself and from an origin in cors.origins', async () => {
    for (const headers of <Record<string, string>[]>[
      {},
      { Origin: `http://${acme.host}` },
      { Referer: `https://${acme.host}/admin` },
      { Origin: 'https://portal.acme.example' },
    ]) {
      const res = await login(headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.headers['set-cookie']).toBeDefined();
    }
  });
});
