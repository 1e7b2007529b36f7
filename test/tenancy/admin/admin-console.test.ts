import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchChromium, type Browser } from '../../support/chromium';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback-server';
import { createTestApp, client, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, asAcme } from '../../support/login';
import { startTestWorkers, waitFor } from '../../messaging/messages/delivery-peers';
import { TenantImporter } from '../../../src/tenancy/tenants/tenant-importer';
import { readDemoDocument } from '../../../seeds/demo-tenants';
import { startWebhookReceiver, type WebhookReceiver } from '../../messaging/webhooks/webhook-receiver';

const RESULTS = path.resolve(__dirname, '../../../.test-results');
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const SECTIONS = ['security', 'courses', 'messaging', 'integrations', 'activity', 'deliveries'];
let t: TestApp;
let server: LoopbackServer | undefined;
let browser: Browser | undefined;
let workers: Awaited<ReturnType<typeof startTestWorkers>> | undefined;
let base: string;
let host: string;
let page: Page;
let receiver: WebhookReceiver | undefined;
const pageErrors: string[] = [];

beforeAll(async () => {
  // No SMTP_URL: e-mail deliveries fail with "not configured", which the Deliveries section shows.
  // Webhooks go to a receiver on loopback, which the operator must allow.
  t = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' });
  receiver = await startWebhookReceiver();
  const slug = `console-${randomBytes(4).toString('hex')}`;
  host = `${slug}.localhost`;
  const { tenantId } = await t.container.resolve(TenantImporter).import(readDemoDocument('acme'), { slug, hosts: [host], onProgress: () => {} });
  workers = await startTestWorkers(t.container, [tenantId]);
  server = await serveOnLoopback(t.app);
  base = `http://${host}:${server.port}`;
  browser = await launchChromium();
  page = await browser.context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await workers?.stop();
  await t?.close();
  await receiver?.close();
});

const item = (id: string) => page.locator(`#item-${id.replace(/\./g, '\\.')}`);

/** A number item: the bad value's API error shows under it, the good value is saved. */
async function refusedThenSaved(id: string, bad: string, good: string, error: RegExp) {
  const box = item(id);
  await box.locator('input[type=number]').fill(bad);
  await box.locator('button.save').click();
  await expect.poll(() => box.locator('p.error').textContent()).toMatch(error);
  await box.locator('input[type=number]').fill(good);
  await box.locator('button.save').press('Enter');
  await expect.poll(() => item(id).locator('.saved').textContent()).toBe('saved');
}

async function axeViolations(selector: string) {
  // page.evaluate runs over the DevTools protocol, outside the page's CSP, which stays strict.
  // (globalThis as any): these callbacks run in the browser, and the tests' tsconfig has no DOM types.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE);
  return page.evaluate(async (sel) => {
    const r = await (globalThis as any).axe.run(sel, { resultTypes: ['violations'] });
    return r.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  }, selector);
}

describe('tenant admin console in Chromium', () => {
  it('logs in with the keyboard alone and shows every section', async () => {
    const admin = await asAcme(t, host, 'admin');
    expect((await admin.post('/api/messages').send({ user_name: 'ola', title: 'Course reminder', text: 'Tomorrow at nine' })).status).toBe(200);
    await page.goto(`${base}/admin`);
    // the form shows once the page has asked whether a session exists (slow on a busy machine)
    await page.locator('form#login').waitFor();
    await page.locator('form#login input[name=user_name]').focus();
    await page.keyboard.type('admin');
    await page.keyboard.press('Tab');
    await page.keyboard.type(ACME_PASSWORDS.admin);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#console').isVisible()).toBe(true);
    for (const s of SECTIONS) expect(await page.locator(`#${s}`).isVisible()).toBe(true);
    expect(await page.locator('#security .item').count()).toBeGreaterThan(5);
    expect(await page.locator('#courses #item-order_system\\.enabled').count()).toBe(1);
    expect(await page.locator('#courses #item-files\\.max_bytes_per_person').count()).toBe(1);
    expect(await page.locator('#messaging #item-mail\\.from').count()).toBe(1);
    expect(await page.locator('#integrations #item-custom_attributes').count()).toBe(1);
    // keyboard navigation: the nav link moves focus into its section
    await page.locator('nav a[href="#deliveries"]').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('deliveries');
  });

  it('Security: a bad value shows the API error, list rows are validated per row, a good value is saved with who and when', async () => {
    await refusedThenSaved('password.max_age_days', '-1', '60', /config item password\.max_age_days: .*>=1/);
    expect(await item('password.max_age_days').locator('.last-change').textContent()).toContain('Changed by admin');

    const cors = item('cors.origins');
    await cors.locator('button.add').click();
    await page.keyboard.type('https://intranet.acme.example/');
    await cors.locator('button.save').click();
    await expect.poll(() => cors.locator('.row-error').last().textContent()).toContain('must be an origin');
    await cors.locator('input.row-value').last().fill('https://intranet.acme.example');
    await cors.locator('button.save').click();
    await expect.poll(() => item('cors.origins').locator('.saved').textContent()).toBe('saved');
    expect(await item('cors.origins').locator('input.row-value').count()).toBe(3);
  });

  it('Security: an existing tenant without required SWT expiry is told to turn it on; items without a recommendation say nothing (issue 40)', async () => {
    const box = item('api.oauth.require_expires_on');
    await expect.poll(() => box.locator('p.recommend').textContent()).toContain('Recommended: true');
    expect(await box.locator('input[role=switch]').isChecked()).toBe(false);
    expect(await item('password.max_age_days').locator('p.recommend').count()).toBe(0);
    expect(await item('cors.origins').locator('p.recommend').count()).toBe(0);
  });

  it('Courses: a switch toggled with the keyboard is saved', async () => {
    const sw = item('order_system.enabled').locator('input[role=switch]');
    const before = await sw.isChecked();
    await sw.focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => item('order_system.enabled').locator('.saved').textContent()).toBe('saved');
    expect(await item('order_system.enabled').locator('input[role=switch]').isChecked()).toBe(!before);
  });

  it('Messaging: an out-of-range limit is refused inline, a good one saved', async () => {
    await refusedThenSaved('messages.max_cc', '500', '5', /config item messages\.max_cc: .*<=100/);
  });

  it('Messaging: reminder thresholds are rows of days; a 0 is refused on its row, an added 14 is saved as a number', async () => {
    const days = item('reminders.days_before');
    expect(await days.locator('input.row-value').evaluateAll((els) => els.map((e: any) => e.value))).toEqual(['30', '7']);
    await days.locator('button.add').click();
    await page.keyboard.type('0');
    await days.locator('button.save').click();
    await expect.poll(() => days.locator('.row-error').last().textContent()).toContain('positive whole number');
    await days.locator('input.row-value').last().fill('14');
    await days.locator('button.save').click();
    await expect.poll(() => item('reminders.days_before').locator('.saved').textContent()).toBe('saved');
    const admin = await asAcme(t, host, 'admin');
    expect((await admin.get('/api/configitems/reminders.days_before')).body.configitems[0].value).toEqual([30, 7, 14]);
  });

  it('Integrations: custom attributes as a table with per-row API errors; SWT and CORS checkers', async () => {
    const attrs = item('custom_attributes');
    const rows = await attrs.locator('tr.attribute').count();
    await attrs.locator('button.add').click();
    const last = attrs.locator('tr.attribute').last();
    await last.locator('[name=name]').fill('9lives');
    await last.locator('[name=label]').fill('Lives');
    await last.locator('[name=type]').selectOption('number');
    await attrs.locator('button.save').click();
    await expect.poll(() => last.locator('.row-error').textContent()).toContain('name: must be a letter');
    await last.locator('[name=name]').fill('lives');
    await attrs.locator('button.save').click();
    await expect.poll(() => item('custom_attributes').locator('.saved').textContent()).toBe('saved');
    expect(await item('custom_attributes').locator('tr.attribute').count()).toBe(rows + 1);

    // (with the tenant's Issuer: since issue 40 a token without one fails the issuer check too where api.oauth.issuer is set)
    await page.fill(
      '#swt-token-form textarea[name=token]',
      'Issuer=https%3A%2F%2Fidp.acme.example&username=ola&HMACSHA256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%3D',
    );
    await page.click('#swt-token-form button[type=submit]');
    await expect.poll(() => page.locator('#swt-result li.fail').getAttribute('data-check')).toBe('signature');
    await page.fill('#swt-build-form input[name=user_name]', 'ola');
    await page.click('#swt-build-form button[type=submit]');
    await expect.poll(() => page.locator('#swt-result li.ok').count()).toBe(6);
    expect(await page.locator('#swt-result li.fail').count()).toBe(0);
    expect(await page.locator('#swt-result textarea').inputValue()).toContain('HMACSHA256=');

    await page.fill('#cors-form input[name=origin]', 'https://intranet.acme.example');
    await page.click('#cors-form button[type=submit]');
    await expect.poll(() => page.locator('#cors-result').textContent()).toContain('allowed');
    await page.fill('#cors-form input[name=origin]', 'https://evil.example');
    await page.click('#cors-form button[type=submit]');
    await expect.poll(() => page.locator('#cors-result').textContent()).toContain('refused: not listed in cors.origins');
  });

  it('Integrations: a webhook endpoint is added with the keyboard, its secret shown once, and a test event arrives signed', async () => {
    const path = '/ok/console';
    await page.fill('#webhook-form input[name=url]', 'ftp://hooks.acme.example/x');
    await page.check('#webhook-form input[value="person.updated"]');
    await page.click('#webhook-form button[type=submit]');
    await expect.poll(() => page.locator('#webhook-form-error').textContent()).toContain('malformed parameter url: must be http or https');

    await page.locator('#webhook-form input[name=url]').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(receiver!.url(path));
    await page.keyboard.press('Tab');
    await page.keyboard.type('Intranet');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    // back in the description field, Enter submits the form
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#webhook-secret-value').inputValue()).toMatch(/^whsec_/);
    receiver!.expect(path, await page.locator('#webhook-secret-value').inputValue());
    const row = page.locator('#webhook-rows tr.webhook');
    await expect.poll(() => row.locator('td.url').textContent()).toContain(receiver!.url(path));
    expect(await row.locator('td').nth(1).textContent()).toBe('person.created, person.updated');

    await row.locator('button.send-test').click();
    await expect.poll(() => page.locator('#webhooks-status').textContent()).toMatch(/^test event msg_\w+ queued$/);
    await expect
      .poll(async () => {
        await page.click('#webhook-deliveries-refresh');
        return page.locator('#webhook-delivery-rows tr.attempt td.status-code').first().textContent();
      })
      .toBe('200');
    expect(await page.locator('#webhook-delivery-rows tr.attempt td.state').first().textContent()).toBe('delivered');
    expect(receiver!.at(path).map((r) => [r.body.type, r.verifiedWith])).toEqual([['webhook.test', ['current']]]);
  });

  it('Deliveries: the failed reminder shows its reason and is retried', async () => {
    await page.selectOption('#delivery-filter select[name=state]', 'failed');
    const failed = page.locator('#delivery-rows tr.state-failed');
    await expect
      .poll(async () => {
        await page.click('#delivery-filter button[type=submit]');
        return failed.count();
      })
      .toBeGreaterThan(0);
    expect(await failed.first().locator('td.reason').textContent()).toContain('not configured');
    const id = await failed.first().getAttribute('data-delivery-id');
    await failed.first().locator('button.retry').click();
    await expect.poll(() => page.locator('#delivery-status').textContent()).toBe(`delivery ${id} queued again`);
    // the relay and worker run it again: a second attempt, failing for the same reason
    const admin = await asAcme(t, host, 'admin');
    await waitFor('second attempt', async () =>
      (await admin.get('/api/messages/deliveries?state=failed')).body.deliveries.find((d: any) => String(d.delivery_id) === id && d.attempts === 2),
    );
    await page.selectOption('#delivery-filter select[name=state]', '');
    await page.click('#delivery-filter button[type=submit]');
    await expect.poll(() => page.locator(`#delivery-rows tr[data-delivery-id="${id}"] td`).nth(5).textContent()).toBe('2');
  });

  it('Activity: filtered by type and user, it answers who changed what', async () => {
    await page.click('#audit-filter button[type=submit]');
    await page.fill('#audit-filter input[name=type]', 'config.changed');
    await page.fill('#audit-filter input[name=user_name]', 'admin');
    await page.click('#audit-filter button[type=submit]');
    const rows = page.locator('#audit-rows tr.audit-entry');
    await expect
      .poll(() => rows.locator('td.subject').allTextContents())
      .toEqual(['custom_attributes', 'reminders.days_before', 'messages.max_cc', 'order_system.enabled', 'cors.origins', 'password.max_age_days']);
    await page.fill('#audit-filter input[name=type]', 'delivery.retried');
    await page.click('#audit-filter button[type=submit]');
    await expect.poll(() => rows.locator('td.type').allTextContents()).toEqual(['delivery.retried']);
  });

  it('has no serious or critical axe violation in any section, fits 375 px, and leaves a screenshot per section', async () => {
    fs.mkdirSync(RESULTS, { recursive: true });
    for (const s of SECTIONS) {
      expect(await axeViolations(`#${s}`), s).toEqual([]);
      const file = path.join(RESULTS, `admin-${s}.png`);
      await page.locator(`#${s}`).screenshot({ path: file });
      expect(fs.statSync(file).size).toBeGreaterThan(1000);
    }
    expect(await axeViolations('body')).toEqual([]);
    await page.setViewportSize({ width: 375, height: 800 });
    const wide = await page.evaluate(() =>
      [...(globalThis as any).document.querySelectorAll('body *')]
        .filter((e: any) => e.getBoundingClientRect().right > 376 && !e.parentElement?.closest('.scroll'))
        .map((e) => `${e.tagName}#${e.id}.${e.className}`)
        .slice(0, 5),
    );
    expect(wide).toEqual([]);
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(pageErrors).toEqual([]);
  });

  it('Log out ends the session on the server', async () => {
    const session = (await browser!.context.cookies(base)).find((c) => c.name === 'tg-visit');
    expect(session?.value).toBeTruthy();
    await page.click('#logout');
    await expect.poll(() => page.locator('form#login').isVisible()).toBe(true);
    expect(await page.locator('#console').isVisible()).toBe(false);
    expect((await client(t, host, `tg-visit=${session!.value}`).get('/api/configitems/definitions')).status).toBe(401);
  });
});
