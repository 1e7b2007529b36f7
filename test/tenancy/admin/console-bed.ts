import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { launchChromium, type Browser } from '../../support/chromium';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback-server';
import { createTestApp, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS } from '../../support/login';
import { startSmtpSink, startTestWorkers } from '../../messaging/messages/delivery-peers';
import { TenantImporter } from '../../../src/tenancy/tenants/tenant-importer';
import { readDemoDocument } from '../../../seeds/demo-tenants';

export const RESULTS = path.resolve(__dirname, '../../../.test-results');
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface ConsoleBed {
  t: TestApp;
  smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  host: string;
  base: string;
  page: Page;
  pageErrors: string[];
}

/**
 * The real app with an SMTP server on loopback as its mail, the workers that send, a fresh acme
 * tenant on a *.localhost host (Chromium resolves it to loopback) and a Chromium page, around a
 * test file. Read the fields inside tests. `edit` may add to the acme document first (persons, events, sign-ons).
 */
export function useConsoleBed(edit: (doc: any) => void = () => {}): ConsoleBed {
  const bed = { pageErrors: [] as string[] } as ConsoleBed;
  let server: LoopbackServer | undefined;
  let browser: Browser | undefined;
  let workers: Awaited<ReturnType<typeof startTestWorkers>> | undefined;
  beforeAll(async () => {
    bed.smtp = await startSmtpSink();
    bed.t = await createTestApp({ SMTP_URL: bed.smtp.url });
    const slug = `console-${randomBytes(4).toString('hex')}`;
    bed.host = `${slug}.localhost`;
    const doc = readDemoDocument('acme');
    edit(doc);
    const { tenantId } = await bed.t.container.resolve(TenantImporter).import(doc, { slug, hosts: [bed.host], onProgress: () => {} });
    workers = await startTestWorkers(bed.t.container, [tenantId]);
    server = await serveOnLoopback(bed.t.app);
    bed.base = `http://${bed.host}:${server.port}`;
    browser = await launchChromium();
    bed.page = await browser.context.newPage();
    bed.page.on('pageerror', (e) => bed.pageErrors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await workers?.stop();
    await bed.t?.close();
    await bed.smtp?.stop();
  });
  return bed;
}

/** expect.poll with room for a busy machine (two test files, Chromium and the workers on two cores). */
export const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });

/** Opens the console at `hash` and logs in as acme's admin with the keyboard alone. */
export async function logInWithKeyboard(bed: ConsoleBed, hash = '') {
  const { page } = bed;
  await page.goto(`${bed.base}/admin${hash}`);
  // the form shows once the page has asked whether a session exists (slow on a busy machine)
  await page.locator('form#login').waitFor();
  await page.locator('form#login input[name=user_name]').focus();
  await page.keyboard.type('admin');
  await page.keyboard.press('Tab');
  await page.keyboard.type(ACME_PASSWORDS.admin);
  await page.keyboard.press('Enter');
  await page.locator('#console').waitFor();
  // the sections fill in after the console shows: the last lists to arrive
  for (const list of ['#competence-tree li', '#role-list li', '#location-list li', '#calendar-count:not(:empty)'])
    await page.locator(list).first().waitFor({ timeout: 15_000 });
}

/** Presses Enter on `button` (by keyboard) and waits until the form it opens has focus in its first field `field`. */
export async function openForm(page: Page, button: string, field: string) {
  await page.locator(button).focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => focusedId(page), { timeout: 15_000 }).toMatch(new RegExp(`^f-${field}-`));
}

/** The id and the accessible name (aria-label, else text) of the focused element. */
export const focusedId = (page: Page) => page.evaluate(() => (globalThis as any).document.activeElement?.id ?? '');
export const focusedText = (page: Page) =>
  page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label') ?? (globalThis as any).document.activeElement?.textContent);

/** The field `name` of the form `form`, and its error line. */
export const input = (page: Page, form: string, name: string) => page.locator(`${form} [name="${name}"]`);
export const fieldError = (page: Page, form: string, name: string) => page.locator(`${form} .field[data-field="${name}"] .field-error`);

/** Serious and critical axe-core violations inside `selector` (injected over the DevTools protocol: the CSP stays strict). */
export async function axeViolations(page: Page, selector: string) {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE);
  return page.evaluate(async (sel) => {
    const r = await (globalThis as any).axe.run(sel, { resultTypes: ['violations'] });
    return r.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  }, selector);
}

/** At 375 px nothing sticks out (but inside a .scroll box) and the page does not scroll sideways. */
export async function expectFits375(page: Page) {
  await page.setViewportSize({ width: 375, height: 800 });
  const wide = await page.evaluate(() =>
    [...(globalThis as any).document.querySelectorAll('body *')]
      .filter((e: any) => e.getBoundingClientRect().right > 376 && !e.parentElement?.closest('.scroll'))
      .map((e: any) => `${e.tagName}#${e.id}.${e.className}`)
      .slice(0, 5),
  );
  expect(wide).toEqual([]);
  expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** A competence's row in the tree, by its exact title. */
export const competenceNode = (page: Page, title: string) =>
  page
    .locator('#competence-tree li.competence')
    .filter({ has: page.locator(':scope > .node .title', { hasText: new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) });
