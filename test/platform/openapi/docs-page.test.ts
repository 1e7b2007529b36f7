import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { launchChromium, type Browser } from '../../support/chromium';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback-server';
import { createTestApp, type TestApp } from '../../support/test-app';

/** /docs must render in a real browser: helmet's CSP could silently block Swagger UI. */


let t: TestApp;
let server: LoopbackServer | undefined;
let context: BrowserContext;
let browser: Browser | undefined;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  server = await serveOnLoopback(t.app);
  base = `http://127.0.0.1:${server.port}`;
  browser = await launchChromium();
  context = browser.context;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

describe('API docs page in headless Chromium', () => {
  it('renders every operation of the OpenAPI document without console errors', async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${base}/docs/`);
    const login = page.getByText('/api/login', { exact: true }).first();
    await login.waitFor({ state: 'visible', timeout: 20_000 });
    // The screenshot shows the rendered operations, not just the header.
    await login.scrollIntoViewIfNeeded();
    fs.mkdirSync('.test-results', { recursive: true });
    await page.screenshot({ path: path.join('.test-results', 'docs-page.png'), fullPage: false });

    const doc = (await (await fetch(`${base}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const expected = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    const rendered = await page.locator('.opblock').count();
    expect(rendered).toBe(expected);
    await expect(page.locator('.info .title').innerText()).resolves.toContain('API');
    expect(problems).toEqual([]);
    await page.close();
  });
});
