import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { launchChromium, type Browser } from '../../support/chromium';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback-server';
import { createTestApp, client, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS } from '../../support/login';
import { TenantImporter } from '../../../src/tenancy/tenants/tenant-importer';
import { readDemoDocument } from '../../../seeds/demo-tenants';

const SCREENSHOT = path.resolve(__dirname, '../../../.test-results/admin-page.png');
let t: TestApp;
let server: LoopbackServer | undefined;
let context: BrowserContext;
let browser: Browser | undefined;
let base: string;
let host: string;

beforeAll(async () => {
  t = await createTestApp();
  // Chromium resolves *.localhost to loopback by itself, so the tenant host needs no DNS.
  const slug = `admin-${randomBytes(4).toString('hex')}`;
  host = `${slug}.localhost`;
  await t.container.resolve(TenantImporter).import(readDemoDocument('acme'), { slug, hosts: [host], onProgress: () => {} });
  server = await serveOnLoopback(t.app);
  base = `http://${host}:${server.port}`;
  browser = await launchChromium();
  context = browser.context;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

describe('GET /admin', () => {
  it('serves the page with a CSP that allows only same-origin scripts', async () => {
    const res = await client(t, host).get('/admin');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.text).toContain('<script type="module" src="/admin/admin.js"></script>');
    expect((await client(t, 'nobody.localhost').get('/admin')).status).toBe(404);
  });

  it('lets acme admin log in, change password.max_age_days, see the error for -1 and the history entry', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/admin`);
    await page.fill('input[name=user_name]', 'admin');
    await page.fill('input[name=password]', ACME_PASSWORDS.admin);
    await page.click('form#login button[type=submit]');

    const item = page.locator('#item-password\\.max_age_days');
    await expect.poll(() => item.locator('input[type=number]').inputValue()).toBe('90');
    await expect.poll(() => page.locator('#item-api\\.oauth\\.secret .secret-state').textContent()).toBe('set');
    expect(await page.locator('form#login').isVisible()).toBe(false);

    await item.locator('input[type=number]').fill('-1');
    await item.locator('button.save').click();
    await expect.poll(() => item.locator('.error').textContent()).toMatch(/config item password\.max_age_days: .*>=1/);

    await item.locator('input[type=number]').fill('45');
    await item.locator('button.save').click();
    const saved = page.locator('#item-password\\.max_age_days');
    await expect.poll(() => saved.locator('.saved').textContent()).toBe('saved');
    await expect.poll(() => saved.locator('.error').textContent()).toBe('');

    await saved.locator('details summary').click();
    const firstChange = saved.locator('tr.change').first();
    await expect.poll(() => firstChange.textContent()).toContain('admin');
    expect(await firstChange.locator('td').nth(2).textContent()).toBe('90');
    expect(await firstChange.locator('td').nth(3).textContent()).toBe('45');

    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(1000);
    expect(errors).toEqual([]);

    // The API agrees with what the page shows.
    const api: any = await page.evaluate(async () => (await fetch('/api/configitems/password.max_age_days')).json());
    expect(api.configitems[0].value).toBe(45);
  });

  it('Log out ends the session on the server, not only in the page', async () => {
    const page = await context.newPage();
    await page.goto(`${base}/admin`);
    if (await page.locator('form#login').isVisible()) {
      await page.fill('input[name=user_name]', 'admin');
      await page.fill('input[name=password]', ACME_PASSWORDS.admin);
      await page.click('form#login button[type=submit]');
    }
    await expect.poll(() => page.locator('#logout').isVisible()).toBe(true);
    const session = (await context.cookies(base)).find((c) => c.name === 'tg-visit');
    expect(session?.value).toBeTruthy();

    await page.click('#logout');
    await expect.poll(() => page.locator('form#login').isVisible()).toBe(true);
    expect((await context.cookies(base)).find((c) => c.name === 'tg-visit')).toBeUndefined();
    // The old cookie value, replayed, no longer opens anything.
    const replay = await client(t, host, `tg-visit=${session!.value}`).get('/api/configitems/definitions');
    expect(replay.status).toBe(401);
    await page.reload();
    await expect.poll(() => page.locator('form#login').isVisible()).toBe(true);
  });
});
