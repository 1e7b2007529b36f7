import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ACME_PASSWORDS, asAcme } from '../../support/login';
import { RESULTS, axeViolations, eventually, expectFits375, logInWithKeyboard, useConsoleBed } from './console-bed';

// The Overview and the Matrix in Chromium on the real API: a superuser sees the Overview first with
// its three charts (SVG, text alternatives) whose tables hold the numbers of GET /api/reports/compliance;
// a bar's link opens the matrix filtered to its organisation (the rows of GET /api/reports/competencematrix);
// the export links download the CSV and XLSX of the same filter; a manager sees only the organisations
// they manage (and no other section); someone neither superuser nor manager sees no Overview.
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const bed = useConsoleBed((doc) => {
  // something to expire in each window: 0-30, 31-60 and 61-90 days
  doc.person_competences.push(
    { person: 'siri', competence: 'hse-basic', date: '2025-01-10', valid_until: inDays(20), passed: 100 },
    { person: 'nils', competence: 'hse-basic', date: '2025-01-10', valid_until: inDays(45), passed: 100 },
    { person: 'kari', competence: 'leadership-101', date: '2025-01-10', valid_until: inDays(80), passed: 100 },
  );
  // 20 more office workers: the matrix of the whole tenant takes two pages of 25
  for (let i = 10; i < 30; i++)
    doc.persons.push({ user_name: `clerk${i}`, firstname: 'Clerk', lastname: `Number ${i}`, organisation: 'acme-hr', roles: ['office'] });
});
let page: Page;
beforeAll(() => {
  page = bed.page;
});

const cells = (table: string) =>
  page.locator(`${table} tbody tr`).evaluateAll((rows: any[]) => rows.map((r) => [...r.children].map((c: any) => c.textContent.trim())));
const organisationIds = async () => {
  const admin = await asAcme(bed.t, bed.host, 'admin');
  const res = await admin.get('/api/organisations?limit=100');
  return Object.fromEntries(res.body.organisations.map((o: any) => [o.name, o.organisation_id])) as Record<string, number>;
};

async function complianceOf(user: 'admin' | 'kari', organisationId: number, days: number) {
  const res = await (
    await asAcme(bed.t, bed.host, user)
  ).get(`/api/reports/compliance?organisation_id=${organisationId}&recursive=1&expiring_within_days=${days}`);
  expect(res.status).toBe(200);
  return res.body.compliance as any[];
}

describe('admin console: overview and matrix in Chromium', () => {
  it('a superuser sees the Overview first: three charts whose tables hold the numbers of the compliance report', async () => {
    await logInWithKeyboard(bed);
    await page.locator('#table-missing').waitFor({ state: 'attached', timeout: 15_000 });
    expect(await page.locator('#console > .section').first().getAttribute('id')).toBe('overview');
    expect(await page.locator('#sections a').first().textContent()).toBe('Overview');
    const org = await organisationIds();
    const [r30, r60, r90] = [
      await complianceOf('admin', org['Acme Industries'], 30),
      await complianceOf('admin', org['Acme Industries'], 60),
      await complianceOf('admin', org['Acme Industries'], 90),
    ];

    // compliance per organisation: a bar (a link) and a table row per report row, the same numbers
    expect(await cells('#table-compliance')).toEqual(
      r90.map((r) => [r.organisation_name, ...[r.persons, r.required, r.passed, r.expiring, r.expired, r.missing, r.percent_compliant].map(String)]),
    );
    const chart = page.locator('svg#chart-compliance');
    expect(await chart.getAttribute('role')).toBe('group');
    expect(await chart.locator('title').textContent()).toBe('Compliance per organisation');
    expect(await chart.locator('desc').textContent()).toContain(`${r90[0].organisation_name} ${r90[0].percent_compliant}%`);
    expect(await chart.locator('a.chart-link').evaluateAll((as: any[]) => as.map((a) => a.getAttribute('aria-label')))).toEqual(
      r90.map((r) => `${r.organisation_name} ${r.percent_compliant}% compliant, ${r.passed + r.expiring} of ${r.required} held. Open its matrix`),
    );

    // what expires: the windows are differences of the cumulative counts, one in each here
    const [e30, e60, e90] = [r30[0].expiring, r60[0].expiring, r90[0].expiring];
    expect([e30, e60 - e30, e90 - e60].every((n) => n >= 1)).toBe(true);
    expect((await cells('#table-expiry')).map((r) => [r[0], r[2], r[3]])).toEqual([
      ['0–30 days', String(e30), String(e30)],
      ['31–60 days', String(e60 - e30), String(e60)],
      ['61–90 days', String(e90 - e60), String(e90)],
    ]);
    expect(await page.locator('svg#chart-expiry a.chart-link').count()).toBe(3);

    // the ten competences most often not held (missing + expired) of the root's by_competence
    const top = r90[0].by_competence
      .map((c: any) => ({ ...c, n: c.missing + c.expired }))
      .filter((c: any) => c.n > 0)
      .sort((a: any, b: any) => b.n - a.n || a.title.localeCompare(b.title))
      .slice(0, 10);
    expect(top.length).toBeGreaterThan(1);
    expect(await cells('#table-missing')).toEqual(top.map((c: any) => [c.title, String(c.missing), String(c.expired), String(c.n), String(c.required)]));
    expect(await page.locator('svg#chart-missing a.chart-link').count()).toBe(top.length);
    expect(await page.locator('svg#chart-missing .chart-label').allTextContents()).toEqual(top.map((c: any) => `${c.title} `));

    // text alternatives and the tables open: no serious axe violation
    for (const d of await page.locator('#overview details').all()) await d.locator('summary').click();
    expect(await axeViolations(page, '#overview')).toEqual([]);
    fs.mkdirSync(RESULTS, { recursive: true });
    await page.locator('#overview').screenshot({ path: path.join(RESULTS, 'admin-overview.png') });
  });

  it("a bar's link (keyboard) opens the matrix filtered to its organisation", async () => {
    const org = await organisationIds();
    await page.locator(`svg#chart-compliance a.chart-link[href="#matrix?organisation_id=${org.Operations}&recursive=1"]`).focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.evaluate(() => (globalThis as any).location.hash)).toBe(`#matrix?organisation_id=${org.Operations}&recursive=1`);
    await eventually(() => page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('matrix');
    expect(await page.locator('#matrix-filter select[name=organisation_id]').inputValue()).toBe(String(org.Operations));
    const admin = await asAcme(bed.t, bed.host, 'admin');
    const api = (await admin.get(`/api/reports/competencematrix?organisation_id=${org.Operations}&recursive=1&limit=25`)).body.competencematrix;
    await eventually(() => page.locator('#matrix-table tbody tr').evaluateAll((rs: any[]) => rs.map((r) => r.dataset.userName))).toEqual(
      api.map((r: any) => r.user_name),
    );
    // status in words in every cell, compliant as yes/no
    const siri = api.find((r: any) => r.user_name === 'siri');
    const row = page.locator('#matrix-table tr[data-user-name=siri]');
    expect(await row.locator('td.compliant').textContent()).toBe(siri.compliant ? 'yes' : 'no');
    const hse = siri.competences.find((c: any) => c.title === 'HSE basic course');
    expect(await row.locator('td.status-expiring').first().textContent()).toBe(`expiring ${hse.valid_until}`);

    // a competence's link opens the matrix with that column only
    await page.locator('#table-missing a').first().click();
    await eventually(() => page.locator('#matrix-table thead th').allTextContents()).toEqual([
      'Person',
      'Organisation',
      'Compliant',
      (await page.locator('#table-missing tbody th').first().textContent())!.trim(),
    ]);
  });

  it('filters with the form and downloads the CSV and XLSX of the same filter', async () => {
    const org = await organisationIds();
    await page.locator('#matrix-filter select[name=organisation_id]').selectOption(String(org['Acme Industries']));
    await page.locator('#matrix-filter select[name=competence_ids]').selectOption([]);
    await page.locator('#matrix-filter input[name=expiring_within_days]').fill('30');
    await page.locator('#matrix-filter input[name=include_optional]').check();
    await page.locator('#matrix-filter button[type=submit]').press('Enter');
    const query = `organisation_id=${org['Acme Industries']}&recursive=1&expiring_within_days=30&include_optional=1`;
    await eventually(() => page.locator('#matrix-export-csv').getAttribute('href')).toBe(`/api/reports/competencematrix?${query}&format=csv`);
    expect(await page.locator('#matrix-export-xlsx').getAttribute('href')).toBe(`/api/reports/competencematrix?${query}&format=xlsx`);
    const admin = await asAcme(bed.t, bed.host, 'admin');
    const api = (await admin.get(`/api/reports/competencematrix?${query}&limit=25`)).body.competencematrix;
    await eventually(() => page.locator('#matrix-table tbody tr').count()).toBe(25);
    expect(await page.locator('#matrix-table .optional').count()).toBeGreaterThan(0);
    expect(api.length).toBe(25);
    expect(await page.locator('#matrix-status').textContent()).toBe('Persons 1–25 shown.');
    // the next page with the keyboard: focus goes to the table, the rows are the API's second page
    await page.locator('#matrix-next').focus();
    await page.keyboard.press('Enter');
    const second = (await admin.get(`/api/reports/competencematrix?${query}&limit=25&offset=25`)).body.competencematrix;
    await eventually(() => page.locator('#matrix-status').textContent()).toBe(`Persons 26–${25 + second.length} shown.`);
    expect(await page.locator('#matrix-table tbody tr').evaluateAll((rs: any[]) => rs.map((r) => r.dataset.userName))).toEqual(
      second.map((r: any) => r.user_name),
    );
    expect(await page.locator('#matrix-next').isDisabled()).toBe(true);
    await page.locator('#matrix-prev').click();
    await eventually(() => page.locator('#matrix-status').textContent()).toBe('Persons 1–25 shown.');

    // the links download with the session: the right type and an attachment named by the report's day
    const heads = await page.evaluate(
      async (hrefs) =>
        Promise.all(
          hrefs.map(async (h) => {
            const r = await fetch(h!);
            return { type: r.headers.get('content-type'), disposition: r.headers.get('content-disposition') };
          }),
        ),
      [await page.locator('#matrix-export-csv').getAttribute('href'), await page.locator('#matrix-export-xlsx').getAttribute('href')],
    );
    expect(heads[0].type).toMatch(/^text\/csv/);
    expect(heads[0].disposition).toMatch(/^attachment; filename="competencematrix-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(heads[1].type).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(heads[1].disposition).toMatch(/^attachment; filename="competencematrix-\d{4}-\d{2}-\d{2}\.xlsx"$/);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.locator('#matrix-export-csv').click()]);
    expect(csv.suggestedFilename()).toMatch(/^competencematrix-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = fs.readFileSync(await csv.path(), 'utf8');
    expect(text.startsWith('\ufeffuser_name,firstname,lastname,organisation_id,organisation_name,compliant')).toBe(true);
    // every person of the filter, not only the page shown
    expect(text.trim().split('\n').length).toBe(1 + 25 + second.length);
    const [xlsx] = await Promise.all([page.waitForEvent('download'), page.locator('#matrix-export-xlsx').click()]);
    expect(xlsx.suggestedFilename()).toMatch(/\.xlsx$/);
    expect(
      fs
        .readFileSync(await xlsx.path())
        .subarray(0, 2)
        .toString(),
    ).toBe('PK');

    expect(await axeViolations(page, '#matrix')).toEqual([]);
    await page.locator('#matrix').screenshot({ path: path.join(RESULTS, 'admin-matrix.png') });
    await expectFits375(page);
    await page.setViewportSize({ width: 375, height: 800 });
    await page.locator('#overview').screenshot({ path: path.join(RESULTS, 'admin-overview-375.png') });
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(bed.pageErrors).toEqual([]);
  });

  it('a manager sees the Overview and Matrix of the organisations they manage only; others see none', async () => {
    const org = await organisationIds();
    await page.locator('#logout').click();
    await page.locator('form#login input[name=user_name]').fill('kari');
    await page.locator('form#login input[name=password]').fill(ACME_PASSWORDS.kari);
    await page.locator('form#login button[type=submit]').click();
    await page.locator('#table-compliance').waitFor({ state: 'attached', timeout: 15_000 });
    const rows = await complianceOf('kari', org.Operations, 90);
    expect(rows.map((r) => r.organisation_name)).toEqual(['Operations', 'Operations North', 'Operations South']);
    await eventually(() => page.locator('svg#chart-compliance .chart-label').allTextContents()).toEqual(rows.map((r) => `${r.organisation_name} `));
    expect((await cells('#table-compliance')).map((r) => r[7])).toEqual(rows.map((r) => String(r.percent_compliant)));
    expect(await page.locator('#matrix-filter select[name=organisation_id] option').allTextContents()).toEqual([
      'Operations',
      '\u00a0\u00a0Operations North',
      '\u00a0\u00a0Operations South',
    ]);
    await eventually(() => page.locator('#status').textContent()).toBe('You see the organisations you manage. The other sections are for superusers only.');
    for (const s of ['catalogue', 'people', 'security', 'activity']) expect(await page.locator(`#${s}`).isVisible()).toBe(false);
    expect(await page.locator('#sections a:visible').allTextContents()).toEqual(['Overview', 'Matrix']);
    await page.locator('svg#chart-compliance a.chart-link[aria-label^="Operations North "] .chart-label').click();
    await eventually(() => page.locator('#matrix-table tbody tr').evaluateAll((rs: any[]) => rs.map((r) => r.dataset.userName))).toEqual(['nils', 'ola']);
    expect(await axeViolations(page, '#overview')).toEqual([]);
    await expectFits375(page);
    await page.screenshot({ path: path.join(RESULTS, 'admin-overview-manager.png'), fullPage: true });

    // a person who is neither: no Overview
    await page.locator('#logout').click();
    await page.locator('form#login input[name=user_name]').fill('ola');
    await page.locator('form#login input[name=password]').fill(ACME_PASSWORDS.ola);
    await page.locator('form#login button[type=submit]').click();
    await eventually(() => page.locator('#status').textContent()).toContain('superusers only');
    expect(await page.locator('#overview').isVisible()).toBe(false);
    expect(bed.pageErrors).toEqual([]);
  });
});
