import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { asAcme } from '../../support/login';
import { RESULTS, axeViolations, eventually, expectFits375, focusedText, logInWithKeyboard, useConsoleBed } from './console-bed';

// Calendar → event → Participants in Chromium on the real API: a training coordinator records
// attended / passed / grade / comments for 30 participants of last week's course with the keyboard
// alone (Space, Enter, Tab, typing, Ctrl+Enter), a wrong value comes back as the API's 420 under
// that person's field and nothing is recorded, then the batch is saved in one PUT and the
// registrations are read back through the API; a correction back to 0 removes one.
const DAY = 86_400_000;
const COURSE = 'Crane safety';
const RUN = 'Crane safety, last week';
const start = new Date(Date.now() - 7 * DAY);
const day = start.toISOString().slice(0, 10);
const users = Array.from({ length: 30 }, (_, i) => `crane${String(i + 1).padStart(2, '0')}`);
const number = (u: string) => Number(u.slice(5));

const bed = useConsoleBed((doc) => {
  doc.competences.push({ ref: 'crane', title: COURSE, type: 'course', valid_months: 12 });
  doc.persons.push(
    ...users.map((u) => ({ user_name: u, firstname: 'Crane', lastname: `Trainee ${u.slice(5)}`, email: `${u}@acme.example`, organisation: 'acme-ops-north' })),
  );
  doc.events.push({
    ref: 'crane-run',
    competence: 'crane',
    title: RUN,
    instructor: 'kari',
    start: `${day}T07:00:00Z`,
    end: `${day}T14:00:00Z`,
    max_participants: 30,
  });
  doc.person_events.push(...users.map((u) => ({ person: u, event: 'crane-run' })), { person: 'nils', event: 'crane-run', status: 'waitlist' });
});
let page: Page;
beforeAll(() => {
  page = bed.page;
});
let eventId = '';
const form = () => page.locator(`#results-${eventId}`);
const row = (u: string) => form().locator(`tr[data-user-name="${u}"]`);
const participants = async () => {
  const admin = await asAcme(bed.t, bed.host, 'admin');
  const res = await admin.get(`/api/participants/${eventId}?waitlist=0&limit=100`);
  expect(res.status).toBe(200);
  return new Map<string, any>(res.body.participants.map((p: any) => [p.user_name, p]));
};

describe('admin console: results of an event in Chromium', () => {
  it("opens the participants of last week's event from the calendar with the keyboard: the 30 signed on, not the wait list", async () => {
    await logInWithKeyboard(bed, '#calendar');
    await page.fill('#calendar-filter input[name=from]', new Date(Date.now() - 14 * DAY).toISOString().slice(0, 10));
    await page.click('#calendar-filter button[type=submit]');
    const card = page.locator('#calendar-list > li.event', { hasText: RUN });
    await eventually(() => card.count()).toBe(1);
    eventId = (await card.getAttribute('data-event-id')) ?? '';
    await card.locator(':scope > .node button.participants').focus();
    await page.keyboard.press('Enter');
    await eventually(() => form().locator('tbody tr[data-user-name]').count()).toBe(30);
    expect(await row('nils').count()).toBe(0);
    // focus starts in the first person's "attended"
    expect(await focusedText(page)).toMatch(/^Attended: Crane Trainee \d\d$/);
  });

  it("marks 30 people without the mouse; a passed of 150 is refused under that person's field and nothing is recorded", async () => {
    const order = await form()
      .locator('tbody tr[data-user-name]')
      .evaluateAll((rows) => rows.map((r: any) => r.dataset.userName as string));
    expect([...order].sort()).toEqual(users);
    const wrong = order[5];
    for (const u of order) {
      const n = number(u);
      if (n !== 30) await page.keyboard.press('Space'); // attended (crane30 did not come)
      await page.keyboard.press('Enter'); // Enter moves along the row like Tab
      await page.keyboard.type(u === wrong ? '150' : n <= 27 ? '100' : '0');
      await page.keyboard.press('Tab');
      if (n === 1) await page.keyboard.type('5.5');
      await page.keyboard.press('Enter');
      if (n === 2) await page.keyboard.type('came late');
      await page.keyboard.press(u === order[order.length - 1] ? 'Tab' : 'Enter'); // on to the next person's row
    }
    expect(await focusedText(page)).toBe('Save results');
    await page.keyboard.press('Control+Enter');
    const error = row(wrong).locator('td[data-field=passed] .field-error');
    await eventually(() => error.textContent()).toBe(`malformed parameter results[5].passed: must be 0..100`);
    expect(await focusedText(page)).toMatch(new RegExp(`^Passed \\(0 to 100\\): Crane Trainee ${wrong.slice(5)}$`));
    expect(await row(wrong).locator('input[name=passed]').getAttribute('aria-invalid')).toBe('true');
    // all or nothing: no result recorded
    expect([...(await participants()).values()].filter((p) => p.passed !== null)).toEqual([]);

    await page.keyboard.press('Control+A');
    await page.keyboard.type('100');
    await page.keyboard.press('Control+Enter');
    await eventually(() => form().locator('p.saved').textContent()).toMatch(/^30 result\(s\) recorded; 27 registration\(s\) made, 0 removed$/);
    expect(await error.textContent()).toBe('');
    await eventually(() => focusedText(page)).toBe('Save results');
  });

  it('the results and the registrations are there through the API', async () => {
    const all = await participants();
    expect(all.size).toBe(30);
    for (const u of users) {
      const n = number(u);
      expect(all.get(u), u).toMatchObject({
        met: n !== 30,
        passed: n <= 27 ? 100 : 0,
        pass_reached: n <= 27,
        holds_competence: n <= 27,
        result_recorded_by: 'admin',
      });
    }
    expect(all.get('crane01')).toMatchObject({ grade: 5.5, comments: null });
    expect(all.get('crane02')).toMatchObject({ grade: null, comments: 'came late' });
    const admin = await asAcme(bed.t, bed.host, 'admin');
    const held = async (u: string) =>
      (await admin.get(`/api/personcompetences?user_name=${u}`)).body.personcompetences.filter((p: any) => p.title === COURSE && p.state === 'passed');
    const until = `${Number(day.slice(0, 4)) + 1}${day.slice(4)}`;
    expect(await held('crane03')).toMatchObject([{ date: day, valid_until: until, passed: 100 }]);
    expect(await held('crane28')).toEqual([]);
    // the page shows it too
    expect(await row('crane03').locator('td.result').textContent()).toBe('pass mark reached · holds the competence');
  });

  it('a correction back to 0 sends that one row and removes that registration only', async () => {
    await row('crane03').locator('input[name=passed]').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('0');
    await page.keyboard.press('Control+Enter');
    await eventually(() => form().locator('p.saved').textContent()).toBe('1 result(s) recorded; 0 registration(s) made, 1 removed');
    const all = await participants();
    expect(all.get('crane03')).toMatchObject({ passed: 0, holds_competence: false, met: true });
    expect(all.get('crane04')).toMatchObject({ passed: 100, holds_competence: true });
    // unchanged: nothing to send
    await page.keyboard.press('Control+Enter');
    await eventually(() => form().locator('p.saved').textContent()).toBe('nothing to save: no result changed');
  });

  it('is axe-clean with the results open, fits 375 px, leaves a screenshot; Escape closes and gives focus back', async () => {
    expect(await axeViolations(page, '#calendar')).toEqual([]);
    await expectFits375(page);
    fs.mkdirSync(RESULTS, { recursive: true });
    const file = path.join(RESULTS, 'admin-results.png');
    await form().screenshot({ path: file });
    expect(fs.statSync(file).size).toBeGreaterThan(1000);
    await row('crane01').locator('input[name=comments]').focus();
    await page.keyboard.press('Escape');
    expect(await form().count()).toBe(0);
    expect(await focusedText(page)).toBe(`Participants and results of ${RUN}`);
    expect(bed.pageErrors).toEqual([]);
  });
});
