import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type Browser } from '../../support/chromium';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback-server';
import { createTestApp, client, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../../support/login';
import { TenantImporter } from '../../../src/tenancy/tenants/tenant-importer';
import { readDemoDocument } from '../../../seeds/demo-tenants';

const SCREENSHOT = path.resolve(__dirname, '../../../.test-results/admin-audit-log.png');
let t: TestApp;
let server: LoopbackServer | undefined;
let browser: Browser | undefined;
let base: string;
let host: string;

beforeAll(async () => {
  t = await createTestApp();
  const slug = `audit-${randomBytes(4).toString('hex')}`;
  host = `${slug}.localhost`;
  await t.container.resolve(TenantImporter).import(readDemoDocument('acme'), { slug, hosts: [host], onProgress: () => {} });
  server = await serveOnLoopback(t.app);
  base = `http://${host}:${server.port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

describe('admin page: security event log', () => {
  it('shows the entries to a superuser, newest first, and filters them by type and user name', async () => {
    const admin = client(t, host, await loginCookie(t, host, 'admin', ACME_PASSWORDS.admin));
    expect((await admin.put('/api/configitems/order_system.enabled').send({ value: true })).status).toBe(200);
    expect((await admin.put('/api/configitems/api.oauth.secret').send({ value: 'page-test-secret-value-0123' })).status).toBe(200);
    expect((await admin.put('/api/persons/ola').send({ person_data: { mobile: '+4798765432' } })).status).toBe(200);

    const page = await browser!.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/admin`);
    await page.fill('form#login input[name=user_name]', 'admin');
    await page.fill('form#login input[name=password]', ACME_PASSWORDS.admin);
    await page.click('form#login button[type=submit]');

    const rows = page.locator('#audit-rows tr.audit-entry');
    // two logins (the API client's and the page's) are security events too
    await expect.poll(() => rows.count()).toBe(5);
    expect(await rows.locator('td.type').allTextContents()).toEqual([
      'login.succeeded',
      'mobile.changed',
      'config.changed',
      'config.changed',
      'login.succeeded',
    ]);
    expect(await rows.locator('td.subject').allTextContents()).toEqual(['admin', 'ola', 'api.oauth.secret', 'order_system.enabled', 'admin']);
    expect(await page.locator('#audit').textContent()).not.toContain('page-test-secret-value-0123');

    await page.fill('#audit-filter input[name=type]', 'config.changed');
    await page.click('#audit-filter button[type=submit]');
    await expect.poll(() => rows.locator('td.type').allTextContents()).toEqual(['config.changed', 'config.changed']);

    await page.fill('#audit-filter input[name=type]', '');
    await page.fill('#audit-filter input[name=user_name]', 'ola');
    await page.click('#audit-filter button[type=submit]');
    await expect.poll(() => rows.locator('td.subject').allTextContents()).toEqual(['ola']);
    expect(await page.locator('#audit-older').isDisabled()).toBe(true);

    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(errors).toEqual([]);
  });

  it('does not show the section to someone who is not a superuser', async () => {
    await browser!.context.clearCookies();
    const page = await browser!.context.newPage();
    await page.goto(`${base}/admin`);
    await page.fill('form#login input[name=user_name]', 'kari');
    await page.fill('form#login input[name=password]', ACME_PASSWORDS.kari);
    await page.click('form#login button[type=submit]');
    await expect.poll(() => page.locator('#status').textContent()).toContain('superusers only');
    expect(await page.locator('#audit').isVisible()).toBe(false);
  });
});
