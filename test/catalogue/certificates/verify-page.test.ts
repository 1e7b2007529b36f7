import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { client, createTestApp, type TestApp } from '../../support/test-app';
import { loginCookie, ACME_PASSWORDS } from '../../support/login';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback-server';
import { launchChromium, type Browser } from '../../support/chromium';
import { TenantImporter } from '../../../src/tenancy/tenants/tenant-importer';
import { readDemoDocument } from '../../../seeds/demo-tenants';
import { axeViolations, expectFits375, RESULTS } from '../../tenancy/admin/console-bed';
import { competenceIdsByTitle } from '../competences/catalogue-ids';
import { binary, codeIn, pdfText } from './certificate-support';

let t: TestApp;
let server: LoopbackServer;
let browser: Browser;
let page: Page;
let host: string;
let code: string;
const errors: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  const slug = `verify-${randomBytes(4).toString('hex')}`;
  // *.localhost: Chromium resolves it to loopback
  host = `${slug}.localhost`;
  await t.container.resolve(TenantImporter).import(readDemoDocument('acme'), { slug, hosts: [host], onProgress: () => {} });
  const kari = client(t, host, await loginCookie(t, host, 'kari', ACME_PASSWORDS.kari));
  const hse = (await competenceIdsByTitle(kari))['HSE basic course'];
  expect((await kari.put(`/api/personcompetences/${hse}`).send({ user_name: 'ola', show_course_diploma: 1 })).status).toBe(200);
  const pdf = await kari.get(`/api/personcompetences/${hse}/certificate?user_name=ola`).buffer(true).parse(binary);
  code = codeIn(await pdfText(pdf.body));
  server = await serveOnLoopback(t.app);
  browser = await launchChromium();
  page = await browser.context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  // a CSP refusal is a console error; the browser's own favicon request is no part of the page
  page.on('console', (m) => m.type() === 'error' && !m.location().url.endsWith('/favicon.ico') && errors.push(m.text()));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

describe('GET /verify/<code> in Chromium', () => {
  it('is axe-clean, fits 375 px, breaks no CSP rule and says valid in words', async () => {
    const res = await page.goto(`http://${host}:${server.port}/verify/${code}`);
    expect(res!.status()).toBe(200);
    expect(await page.locator('[role=status]').count()).toBe(1);
    expect(await page.locator('[role=status]').textContent()).toContain('Valid');
    expect(await page.title()).toBe('Certificate check: valid');
    expect(await axeViolations(page, 'body')).toEqual([]);
    await expectFits375(page);
    fs.mkdirSync(RESULTS, { recursive: true });
    await page.setViewportSize({ width: 375, height: 700 });
    await page.screenshot({ path: path.join(RESULTS, 'verify-page-375.png'), fullPage: true });
    expect(errors).toEqual([]);
  });

  it('an unknown code shows the not-found page, axe-clean', async () => {
    const res = await page.goto(`http://${host}:${server.port}/verify/${'A'.repeat(32)}`);
    expect(res!.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Certificate not found');
    expect(await axeViolations(page, 'body')).toEqual([]);
  });
});
