import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium, type Browser } from '../../support/chromium';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback-server';
import { createTestApp, type TestApp } from '../../support/test-app';

/** /docs must render in a real browser: helmet's CSP could silently block Swagger UI. */

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** "POST /api/login" for every .opblock in the DOM right now. */
function renderedOperations(page: Page): Promise<string[]> {
  return page
    .locator('.opblock')
    .evaluateAll((blocks) =>
      blocks.map(
        (b) =>
          `${b.querySelector('.opblock-summary-method')?.textContent ?? '?'} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '?'}`,
      ),
    );
}

/**
 * Swagger UI (swagger-ui-dist >= 5.33) virtualizes the operations list once tags + operations reach
 * 150 (VIRTUALIZE_OPERATIONS_THRESHOLD): only the rows near the viewport are in the DOM, the rest is
 * padding that renders as it scrolls into view. So walk the page top to bottom, half a viewport at a
 * time, and note every operation that renders on the way (below the threshold they are all there at once).
 */
async function scrollThroughOperations(page: Page, seen: Set<string>): Promise<void> {
  for (let y = 0; ;) {
    await page.evaluate((top) => (globalThis as any).scrollTo({ top, behavior: 'instant' }), y);
    // the virtualizer re-renders on the scroll event; give it two frames
    await page.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(resolve))));
    for (const op of await renderedOperations(page)) seen.add(op);
    const { scrollY, innerHeight, scrollHeight } = await page.evaluate(() => {
      const w = globalThis as any;
      return { scrollY: w.scrollY as number, innerHeight: w.innerHeight as number, scrollHeight: w.document.documentElement.scrollHeight as number };
    });
    if (scrollY + innerHeight >= scrollHeight) return;
    y = scrollY + Math.floor(innerHeight / 2);
  }
}

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
    const expected = Object.entries(doc.paths)
      .flatMap(([p, ops]) =>
        Object.keys(ops)
          .filter((m) => HTTP_METHODS.has(m))
          .map((m) => `${m.toUpperCase()} ${p}`),
      )
      .sort();
    // Every operation of the document renders (each sweep adds to `seen`; a row missed while the
    // virtualizer caught up is picked up by the next sweep).
    const seen = new Set<string>();
    await expect
      .poll(
        async () => {
          await scrollThroughOperations(page, seen);
          return [...seen].sort();
        },
        { timeout: 30_000 },
      )
      .toEqual(expected);
    await expect(page.locator('.info .title').innerText()).resolves.toContain('API');
    expect(problems).toEqual([]);
    await page.close();
  });
});
