import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchChromium, type Browser } from '../../support/chromium';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback-server';
import { createTestApp, client, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { TenantAdminService } from '../../../src/tenancy/tenants/tenant-admin.service';
import { escapeHtml } from '../../../src/routes/tenancy/admin/landing-page';

const RESULTS = path.resolve(__dirname, '../../../.test-results');
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
let t: TestApp;
let acme: DemoTenant;
let server: LoopbackServer | undefined;
let browser: Browser | undefined;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  // a .localhost host: Chromium resolves it to loopback by itself
  acme = await importDemoTenant(t, 'acme');
  const host = `${acme.slug}.localhost`;
  await t.container.resolve(TenantAdminService).addHost(acme.slug, host);
  acme = { ...acme, host };
  server = await serveOnLoopback(t.app);
  browser = await launchChromium();
  page = await browser.context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

async function seriousAxeViolations() {
  // over the DevTools protocol, outside the page's CSP, which stays strict
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await (globalThis as any).axe.run('html', { resultTypes: ['violations'] });
    return r.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical').map((v: any) => v.id);
  });
}

describe('GET / on a tenant host', () => {
  it('answers a browser with a page naming the tenant and linking the console and the API docs, under the strict CSP', async () => {
    const res = await client(t, acme.host).get('/').set('Accept', BROWSER_ACCEPT);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.text).toContain('<h1>Acme Industries</h1>');
    expect(res.text).toContain('<a href="/admin">Admin console</a>');
    expect(res.text).toContain('<a href="/docs">API documentation</a>');
    expect(res.text).toContain('<a href="/api/openapi.json">');
    expect(res.text).not.toMatch(/<script|style=/);
    // the links lead somewhere
    expect((await client(t, acme.host).get('/admin')).status).toBe(200);
    expect((await client(t, acme.host).get('/api/openapi.json')).status).toBe(200);
    expect([200, 301]).toContain((await client(t, acme.host).get('/docs')).status);
  });

  it('keeps the JSON envelope for callers that do not ask for HTML', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      const r = client(t, acme.host).get('/');
      if (accept) r.set('Accept', accept);
      const res = await r;
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ valid: false, errorcode: 404 });
    }
  });

  it('on an unknown host answers a browser with a plain 404 page, API paths and JSON callers with the envelope', async () => {
    const res = await client(t, 'nobody-here.localhost').get('/').set('Accept', BROWSER_ACCEPT);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.text).toContain('nobody-here.localhost serves no organisation');
    expect(res.text).not.toMatch(/<script|style=|stylesheet/);
    const admin = await client(t, 'nobody-here.localhost').get('/admin').set('Accept', BROWSER_ACCEPT);
    expect(admin.status).toBe(404);
    expect(admin.text).toContain('serves no organisation');

    const json = await client(t, 'nobody-here.localhost').get('/').set('Accept', 'application/json');
    expect(json.status).toBe(404);
    expect(json.body).toEqual({ valid: false, errorcode: 404, message: 'unknown tenant for host nobody-here.localhost' });
    const api = await client(t, 'nobody-here.localhost').get('/api/competences').set('Accept', BROWSER_ACCEPT);
    expect(api.status).toBe(404);
    expect(api.body).toMatchObject({ valid: false, errorcode: 404, message: 'unknown tenant for host nobody-here.localhost' });
    // a Host header that is no host name is not echoed into the page
    const bad = await client(t, 'bad<b>host').get('/').set('Accept', BROWSER_ACCEPT);
    expect(bad.text).toContain('This address serves no organisation');
    expect(bad.text).not.toContain('<b>');
  });

  it('escapes what it shows', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });

  it('in Chromium: the landing page is axe-clean, fits 375 px and its link opens the console sign-in', async () => {
    const base = `http://${acme.host}:${server!.port}`;
    await page.setViewportSize({ width: 375, height: 700 });
    await page.goto(`${base}/`);
    expect(await page.title()).toBe('Acme Industries');
    expect(await seriousAxeViolations()).toEqual([]);
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    fs.mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS, 'landing-page.png'), fullPage: true });

    await page.locator('a[href="/admin"]').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('form#login').isVisible()).toBe(true);

    await page.goto(`http://nobody-${acme.slug}.localhost:${server!.port}/`);
    expect(await page.locator('h1').textContent()).toBe('No organisation at this address');
    expect(await seriousAxeViolations()).toEqual([]);
    await page.screenshot({ path: path.join(RESULTS, 'landing-unknown-host.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('a suspended tenant shows a browser a plain 423 page', async () => {
    const other = await importDemoTenant(t, 'acme');
    await t.container.resolve(TenantAdminService).suspend(other.slug);
    const res = await client(t, other.host).get('/').set('Accept', BROWSER_ACCEPT);
    expect(res.status).toBe(423);
    expect(res.text).toContain('This service is suspended');
    expect((await client(t, other.host).get('/')).body).toMatchObject({ errorcode: 423 });
  });
});
