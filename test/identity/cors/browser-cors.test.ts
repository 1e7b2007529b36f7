import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { launchChromium, type Browser } from '../../support/chromium';
import { client, createTestApp, type TestApp } from '../../support/test-app';
import { loginCookie, ACME_PASSWORDS } from '../../support/login';
import { TenantImporter } from '../../../src/tenancy/tenants/tenant-importer';
import { readDemoDocument } from '../../../seeds/demo-tenants';

/**
 * A real browser enforces what the header tests only assert: a page on an origin in the
 * tenant's cors.origins logs in and reads with credentials; a page elsewhere is blocked.
 */

// The page calls the API the way a customer's intranet script would.
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>cors probe</title></head>
<body><pre id="out">not run</pre><script>
window.probe = async (api, credentials) => {
  const out = { origin: location.origin };
  try {
    const login = await fetch(api + '/api/login', {
      method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(credentials),
    });
    out.login = login.status;
    const item = await fetch(api + '/api/person', { credentials: 'include' });
    out.status = item.status;
    out.body = await item.json();
  } catch (e) {
    out.error = e.name + ': ' + e.message;
  }
  try {
    const simple = await fetch(api + '/api/person', { credentials: 'include' });
    out.simpleGet = simple.status;
  } catch (e) {
    out.simpleGetError = e.name;
  }
  document.getElementById('out').textContent = JSON.stringify(out, null, 2);
  return out;
};
</script></body></html>`;

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

let t: TestApp;
let context: BrowserContext;
let browser: Browser | undefined;
const servers: http.Server[] = [];
let api: string;
let allowedPage: string;
let blockedPage: string;

beforeAll(async () => {
  // Cross-site credentialed fetches only send SameSite=None cookies, which must be Secure;
  // Chromium accepts Secure cookies on http://*.localhost (a potentially trustworthy origin).
  t = await createTestApp({ COOKIE_SAMESITE: 'none', COOKIE_SECURE: '1' });
  const pageServer = () => http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE));
  const [apiServer, allowedServer, blockedServer] = [http.createServer(t.app), pageServer(), pageServer()];
  servers.push(apiServer, allowedServer, blockedServer);
  const [apiPort, allowedPort, blockedPort] = await Promise.all(servers.map(listen));
  allowedPage = `http://127.0.0.1:${allowedPort}`;
  blockedPage = `http://localhost:${blockedPort}`;

  // Chromium resolves every *.localhost name to loopback, so the tenant gets a host of its own.
  const slug = `acme-${randomBytes(4).toString('hex')}`;
  const doc = readDemoDocument('acme');
  doc.config['cors.origins'] = [allowedPage];
  await t.container.resolve(TenantImporter).import(doc, { slug, hosts: [`${slug}.localhost`], onProgress: () => {} });
  api = `http://${slug}.localhost:${apiPort}`;

  // This Chromium blocks third-party cookies by default (as Safari and Firefox do); the
  // cross-site session cookie needs them allowed, like a user's default Chrome profile.
  browser = await launchChromium({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } });
  context = browser.context;
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await t?.close();
});

async function probe(pageOrigin: string, shot: string) {
  const page = await context.newPage();
  await page.goto(`${pageOrigin}/`);
  const out = await page.evaluate(([apiBase, creds]) => (globalThis as any).probe(apiBase, creds), [
    api,
    { user_name: 'ola', password: ACME_PASSWORDS.ola, login: 1 },
  ] as const);
  fs.mkdirSync('.test-results', { recursive: true });
  await page.screenshot({ path: path.join('.test-results', shot) });
  await page.close();
  return out;
}

describe('CORS in headless Chromium', () => {
  it("a page on an origin in acme's cors.origins logs in and reads with the session cookie", async () => {
    const out = await probe(allowedPage, 'cors-allowed-origin.png');
    expect(out.origin).toBe(allowedPage);
    expect(out.error).toBeUndefined();
    expect(out.login).toBe(200);
    expect(out.status).toBe(200);
    expect(out.body.person[0]).toMatchObject({ user_name: 'ola' });
  });

  it('a page on any other origin is blocked by the browser', async () => {
    const out = await probe(blockedPage, 'cors-blocked-origin.png');
    expect(out.origin).toBe(blockedPage);
    expect(out.login).toBeUndefined();
    expect(out.error).toMatch(/^TypeError/);
    expect(out.simpleGetError).toBe('TypeError');
  });

  it('the tenant admin adds an origin to cors.origins and a page there can call the API at once', async () => {
    const host = new URL(api).hostname;
    const admin = client(t, host, await loginCookie(t, host, 'admin', ACME_PASSWORDS.admin));
    const put = await admin.put('/api/configitems/cors.origins').send({ value: [allowedPage, blockedPage] });
    expect(put.body).toMatchObject({ valid: true });
    const out = await probe(blockedPage, 'cors-newly-allowed-origin.png');
    expect(out.error).toBeUndefined();
    expect(out.status).toBe(200);
    expect(out.body.person[0]).toMatchObject({ user_name: 'ola' });
  });
});
