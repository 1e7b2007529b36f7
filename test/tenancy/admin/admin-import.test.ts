import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { asAcme } from '../../support/login';
import { RESULTS, axeViolations, eventually, expectFits375, focusedId, logInWithKeyboard, useConsoleBed } from './console-bed';

// People → Import in Chromium on the real API and its background job: the template link, a small
// persons CSV checked first (the dry run lists the bad row with its column and the API's text and
// writes nothing), then imported with the progress followed to the end (counts and the failed row),
// the new persons read back through the API; a missing file's 419 under the file field.
const bed = useConsoleBed();
let page: Page;
beforeAll(() => {
  page = bed.page;
});
const api = () => asAcme(bed.t, bed.host, 'admin');
const people = ['imp.anna', 'imp.bjorn', 'imp.cecilie', 'imp.dag', 'imp.eirik'];
let file = '';

describe('admin console: import in Chromium', () => {
  it("offers the template of the chosen type; without a file the API's 419 shows under the file field", async () => {
    await logInWithKeyboard(bed, '#people');
    const template = page.locator('#import-template');
    expect(await template.getAttribute('href')).toBe('/api/imports/templates/persons');
    expect(await template.textContent()).toBe('Download the persons template (CSV)');
    await page.selectOption('#import-form select[name=type]', 'registrations');
    expect(await template.getAttribute('href')).toBe('/api/imports/templates/registrations');
    expect(await page.locator('#import-deactivate').isHidden()).toBe(true);
    await page.selectOption('#import-form select[name=type]', 'persons');
    // the link works with the session (a download)
    const res = await page.evaluate(async (href) => {
      const r = await fetch(href);
      return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
    }, '/api/imports/templates/persons');
    expect(res).toMatchObject({ status: 200, type: expect.stringMatching(/^text\/csv/) });
    expect(res.text).toMatch(/^\uFEFF?user_name,/);

    await page.locator('#import-check').focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#import-form .field-error').allTextContents()).toContain('missing parameter: file');
    expect(await focusedId(page)).toMatch(/^imp-file-/);
  });

  it("a dry run lists the bad row (row, column, the API's text) and writes nothing", async () => {
    const admin = await api();
    const orgs = (await admin.get('/api/organisations?limit=100')).body.organisations;
    const north = orgs.find((o: any) => o.name === 'Operations North').organisation_id;
    const role = (await admin.get('/api/roles?all=1')).body.roles.find((r: any) => r.name === 'Welder').role_id;
    const rows = people.map((u, i) => [u, `Imp${i}`, 'Importert', i === 2 ? 'not-an-address' : `${u}@acme.example`, north, role]);
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'console-import-')), 'staff.csv');
    fs.writeFileSync(file, ['user_name,firstname,lastname,email,organisation_id,role_ids', ...rows.map((r) => r.join(','))].join('\n') + '\n');
    await page.setInputFiles('#import-form input[type=file]', file);
    await page.click('#import-check');
    await eventually(() => page.locator('#import-counts').textContent()).toBe('5 rows: 4 would be created, 0 would be updated, 0 unchanged, 1 would fail');
    expect(
      await page
        .locator('#import-report table.import-failures tbody tr')
        .evaluateAll((trs) => trs.map((tr: any) => [...tr.cells].map((c: any) => c.textContent))),
    ).toEqual([['4', 'email', 'malformed parameter person_data[email]: must be an e-mail address like name@example.com']]);
    expect(await page.locator('#import-live').textContent()).toMatch(/Nothing was written\.$/);
    expect((await admin.get('/api/persons/imp.anna')).status).toBe(404);
  });

  it('imports the file: progress in a live region until the end, then the counts and the failed row; the persons are there', async () => {
    const seen: string[] = [];
    await page.exposeFunction('recordLive', (t: string) => seen.push(t));
    await page.evaluate(() => {
      const live = (globalThis as any).document.querySelector('#import-live');
      new (globalThis as any).MutationObserver(() => (globalThis as any).recordLive(live.textContent)).observe(live, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await page.locator('#import-start').focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#import-live').textContent()).toBe('Import finished. 5 rows: 4 created, 0 updated, 0 unchanged, 1 failed');
    expect(seen[0]).toBe('Sending the file…');
    expect(seen.some((t) => /^Import queued…$|^Importing: \d of 5 rows done$/.test(t))).toBe(true);
    expect(await page.locator('#import-progress').evaluate((p: any) => [p.value, p.max])).toEqual([5, 5]);
    expect(await page.locator('#import-counts').textContent()).toBe('5 rows: 4 created, 0 updated, 0 unchanged, 1 failed');
    expect(await page.locator('#import-report table.import-failures tbody tr td').allTextContents()).toEqual([
      '4',
      'email',
      'malformed parameter person_data[email]: must be an e-mail address like name@example.com',
    ]);
    const admin = await api();
    for (const u of people) {
      const res = await admin.get(`/api/persons/${u}`);
      expect(res.status, u).toBe(u === 'imp.cecilie' ? 404 : 200);
    }
    expect((await admin.get('/api/persons/imp.anna')).body.persons[0]).toMatchObject({
      lastname: 'Importert',
      email: 'imp.anna@acme.example',
      organisation: { name: 'Operations North' },
    });
  });

  it('is axe-clean with the report, fits 375 px, and leaves a screenshot', async () => {
    expect(await axeViolations(page, '#import-tool')).toEqual([]);
    await expectFits375(page);
    fs.mkdirSync(RESULTS, { recursive: true });
    const shot = path.join(RESULTS, 'admin-import.png');
    await page.locator('#import-tool').screenshot({ path: shot });
    expect(fs.statSync(shot).size).toBeGreaterThan(1000);
    expect(bed.pageErrors).toEqual([]);
  });
});
