import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { asAcme } from '../../support/login';
import { waitFor } from '../../messaging/messages/delivery-peers';
import {
  RESULTS,
  axeViolations,
  competenceNode,
  eventually,
  expectFits375,
  fieldError,
  focusedId,
  focusedText,
  input,
  logInWithKeyboard,
  openForm,
  useConsoleBed,
} from './console-bed';

// The console's Catalogue and Calendar sections in Chromium, on the real API, workers and a real
// SMTP server on loopback: a course with a module, a location and an event are made through the
// page (keyboard where a person would use it), the event is seen in the list and the month, a
// participant signed on through the API, and the cancellation reaches the participant's mailbox.
// Groups, categories, roles and requirements: admin-catalogue-structure.test.ts.
const DAY = 86_400_000;
const bed = useConsoleBed();
let page: Page;
beforeAll(() => {
  page = bed.page;
});
/** The event's day, 20 days ahead (UTC: the demo tenant's zone); the list shows 180 days from today. */
const eventDay = new Date(Date.now() + 20 * DAY).toISOString().slice(0, 10);
const course = `Forklift driving ${randomBytes(2).toString('hex')}`;
const ids: { course?: string; event?: string } = {};

/** Switches the calendar to the month view and moves on to the event's month. */
async function showEventMonth() {
  await page.click('#calendar-month-view');
  const heading = page.locator('#calendar-month .month-nav h4');
  await heading.waitFor();
  const title = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${eventDay}T12:00:00Z`));
  for (let i = 0; i < 3; i++) {
    const now = await heading.textContent();
    if (now === title) return;
    await page.click('#calendar-next-month');
    await eventually(() => heading.textContent()).not.toBe(now);
  }
  expect(await heading.textContent()).toBe(title);
}

describe('admin console: catalogue and calendar in Chromium', () => {
  it('logs in with the keyboard and shows the competence tree with modules nested; search and type filter narrow it', async () => {
    await logInWithKeyboard(bed, '#catalogue');
    await eventually(() => competenceNode(page, 'HSE basic course').count()).toBe(1);
    expect(await competenceNode(page, 'HSE basic course').locator('ul.tree li.competence .title').allTextContents()).toEqual([
      'HSE basic: module 1, risk',
      'HSE basic: module 2, first aid',
    ]);
    expect(await competenceNode(page, 'Forklift onboarding checklist').locator('button.add-child').textContent()).toBe('Add checklist item');
    // inactive ones are listed (mode=all) and marked
    expect(await competenceNode(page, 'Retired safety course').getAttribute('class')).toContain('inactive');

    await page.fill('#competence-filter input[name=term]', 'weld');
    await page.press('#competence-filter input[name=term]', 'Enter');
    await eventually(async () => (await page.locator('#competence-tree > li > .node .title').allTextContents()).sort()).toEqual([
      'TIG welding',
      'Welding certificate (EN ISO 9606)',
    ]);
    await page.fill('#competence-filter input[name=term]', '');
    await page.selectOption('#competence-filter select[name=types]', 'ecourse');
    await page.click('#competence-filter button[type=submit]');
    await eventually(() => page.locator('#competence-tree > li > .node .title').allTextContents()).toEqual(['Fire safety e-learning']);
    await page.selectOption('#competence-filter select[name=types]', '');
    await page.click('#competence-filter button[type=submit]');
    await eventually(() => competenceNode(page, 'HSE basic course').count()).toBe(1);
  });

  it("shows only the fields of the chosen type, and places the API's 419/420 next to the field it names", async () => {
    const form = '#competence-form';
    await page.locator('#competence-new').focus();
    await page.keyboard.press('Enter');
    await eventually(() => focusedId(page)).toMatch(/^f-title-/);
    const visible = (name: string) => page.locator(`${form} .field[data-field="${name}"]`).isVisible();
    expect([await visible('lms_start_url'), await visible('checked_by'), await visible('parent_id')]).toEqual([false, false, false]);
    await page.selectOption(`${form} select[name=type]`, 'ecourse');
    expect([await visible('lms_start_url'), await visible('checked_by')]).toEqual([true, false]);
    await page.selectOption(`${form} select[name=type]`, 'checklist_item');
    expect([await visible('lms_start_url'), await visible('checked_by'), await visible('parent_id')]).toEqual([false, true, true]);

    // no title: the API's 419 under the title field, which gets focus
    await page.selectOption(`${form} select[name=type]`, 'ecourse');
    await input(page, form, 'lms_start_url').fill('ftp://lms.acme.example/forklift');
    await page.click(`${form} button[type=submit]`);
    await eventually(() => fieldError(page, form, 'title').textContent()).toBe('missing parameter: competence_data[title]');
    expect(await input(page, form, 'title').getAttribute('aria-invalid')).toBe('true');
    await eventually(() => focusedId(page)).toMatch(/^f-title-/);
    // a start URL that is not http(s): the API's 420 under the start URL
    await page.keyboard.type('Forklift e-learning');
    await page.keyboard.press('Enter');
    await eventually(() => fieldError(page, form, 'lms_start_url').textContent()).toMatch(/^malformed parameter competence_data\[lms_start_url\]: /);
    expect(await fieldError(page, form, 'title').textContent()).toBe('');
    // Escape closes the form and gives focus back to the button that opened it
    await page.keyboard.press('Escape');
    expect(await page.locator(form).count()).toBe(0);
    expect(await focusedId(page)).toBe('competence-new');
  });

  it('creates a course with the keyboard and adds a module to it', async () => {
    const form = '#competence-form';
    await page.keyboard.press('Enter'); // focus is on "New competence"
    await eventually(() => focusedId(page)).toMatch(/^f-title-/);
    await page.keyboard.type(course);
    await page.keyboard.press('Tab');
    await page.selectOption(`${form} select[name=type]`, 'course');
    await input(page, form, 'valid_months').fill('36');
    await input(page, form, 'description').fill('Driving a forklift safely on the yard.');
    await page.locator(`${form} input[name=category_ids]`).first().check();
    await input(page, form, 'title').press('Enter');
    await eventually(() => competenceNode(page, course).count()).toBe(1);
    // focus lands on the new competence's Edit button
    await eventually(() => focusedText(page)).toBe(`Edit ${course}`);
    ids.course = (await competenceNode(page, course).getAttribute('data-competence-id')) ?? undefined;
    const admin = await asAcme(bed.t, bed.host, 'admin');
    const read = (await admin.get(`/api/competences/${ids.course}`)).body.competences[0];
    expect(read).toMatchObject({
      title: course,
      type: 'course',
      valid_months: 36,
      description: 'Driving a forklift safely on the yard.',
      active: true,
      categories: [{ name: 'Mandatory training' }],
    });

    await competenceNode(page, course).locator(':scope > .node button.add-child').click();
    const moduleForm = `#competence-tree li[data-competence-id="${ids.course}"] form.entity-form`;
    await eventually(() => focusedId(page)).toMatch(/^f-title-/);
    expect(await page.locator(`${moduleForm} select[name=type]`).inputValue()).toBe('module');
    expect(await page.locator(`${moduleForm} select[name=parent_id]`).inputValue()).toBe(ids.course);
    await page.keyboard.type(`${course}: module 1, the yard`);
    await page.keyboard.press('Enter');
    await eventually(() => competenceNode(page, course).locator('ul.tree li.competence .title').allTextContents()).toEqual([`${course}: module 1, the yard`]);
    expect((await admin.get(`/api/competences/${ids.course}`)).body.competences[0].children).toMatchObject([
      { title: `${course}: module 1, the yard`, type: 'module' },
    ]);

    // edit: only the changed field is sent
    await competenceNode(page, course).locator(':scope > .node button.edit').click();
    const editForm = `#competence-form-${ids.course}`;
    await eventually(() => input(page, editForm, 'valid_months').inputValue()).toBe('36');
    await input(page, editForm, 'valid_months').fill('24');
    await page.click(`${editForm} button[type=submit]`);
    await eventually(async () => (await admin.get(`/api/competences/${ids.course}`)).body.competences[0].valid_months).toBe(24);
    // the page has read the tree again and put focus back on the course (before that, typing elsewhere would lose keys)
    await eventually(() => focusedText(page)).toBe(`Edit ${course}`);
    expect(await page.locator(editForm).count()).toBe(0);
  });

  it('creates a location; a latitude out of range is refused next to its field', async () => {
    // a location, with a latitude the API refuses next to its field
    await openForm(page, '#location-new', 'name');
    await page.keyboard.type('Training hall');
    await input(page, '#location-form', 'capacity').fill('12');
    await input(page, '#location-form', 'latitude').fill('100');
    await input(page, '#location-form', 'longitude').fill('10.7');
    await page.click('#location-form button[type=submit]');
    await eventually(() => fieldError(page, '#location-form', 'latitude').textContent()).toMatch(/^malformed parameter location_data\[latitude\]: /);
    await input(page, '#location-form', 'latitude').fill('59.91');
    await input(page, '#location-form', 'name').press('Enter');
    await eventually(() => page.locator('#location-list li .title').allTextContents()).toContain('Training hall');
    expect(await page.locator('#location-list li', { hasText: 'Training hall' }).locator('.meta').textContent()).toContain('12 seats');
  });

  it('Calendar: an event for the course at the new location, with the keyboard; the end before the start is refused next to the end', async () => {
    await page.locator('nav a[href="#calendar"]').click();
    await page.locator('#event-new').focus();
    await page.keyboard.press('Enter');
    const form = '#event-form';
    await eventually(() => page.locator(form).count()).toBe(1);
    await page.selectOption(`${form} select[name=competence_id]`, ids.course!);
    await input(page, form, 'startdate').fill(`${eventDay}T09:00`);
    await input(page, form, 'enddate').fill(`${eventDay}T08:00`);
    await page.selectOption(`${form} select[name=location_id]`, { label: 'Training hall (12 seats)' });
    await input(page, form, 'max_participants').fill('10');
    await input(page, form, 'instructor_user_name').fill('kari');
    await input(page, form, 'title').press('Enter');
    await eventually(() => fieldError(page, form, 'enddate').textContent()).toMatch(/^malformed parameter event_data\[enddate\]: /);
    await eventually(() => focusedId(page)).toMatch(/^f-enddate-/);
    await input(page, form, 'enddate').fill(`${eventDay}T15:00`);
    await input(page, form, 'title').press('Enter');
    const card = page.locator('#calendar-list > li.event', { hasText: course });
    await eventually(() => card.count()).toBe(1);
    ids.event = (await card.getAttribute('data-event-id')) ?? undefined;
    await eventually(() => focusedText(page)).toBe(`Edit ${course}`);
    expect(await card.locator('.seats').first().textContent()).toBe('0 of 10 seats taken · 10 free · 0 on the wait list');
    expect(await card.locator('.where').first().textContent()).toBe('Training hall · instructor kari');

    // a module event inside it: the module of the course is the only choice
    await card.locator(':scope > .node button.add-module').click();
    const moduleForm = `#event-form-in-${ids.event}`;
    await eventually(() => focusedId(page)).toMatch(/^f-competence_id-/);
    expect(await page.locator(`${moduleForm} select[name=competence_id] option`).allTextContents()).toEqual([
      '(choose)',
      `${course}: module 1, the yard (module)`,
    ]);
    await page.selectOption(`${moduleForm} select[name=competence_id]`, { index: 1 });
    await input(page, moduleForm, 'startdate').fill(`${eventDay}T09:00`);
    await input(page, moduleForm, 'enddate').fill(`${eventDay}T12:00`);
    await input(page, moduleForm, 'title').press('Enter');
    await eventually(() => card.locator('ul.events li.event .title').allTextContents()).toEqual([`${course}: module 1, the yard`]);
  });

  it('Calendar: a participant signed on through the API shows as a seat taken; more seats by Edit; filters by location and instructor; lock and unlock', async () => {
    const admin = await asAcme(bed.t, bed.host, 'admin');
    expect((await admin.post(`/api/personevents/${ids.event}`).send({ user_name: 'ola' })).status).toBe(200);
    await page.click('#calendar-filter button[type=submit]');
    const card = page.locator(`#calendar-list > li.event[data-event-id="${ids.event}"]`);
    await eventually(() => card.locator('.seats').first().textContent()).toBe('1 of 10 seats taken · 9 free · 0 on the wait list');
    // edit: the form shows the times as entered (tenant's zone) and sends what changed
    await card.locator(':scope > .node button.edit').click();
    const edit = `#event-form-${ids.event}`;
    await eventually(() => input(page, edit, 'startdate').inputValue()).toBe(`${eventDay}T09:00`);
    expect(await input(page, edit, 'host_organisation_id').inputValue()).toBe('');
    await input(page, edit, 'max_participants').fill('12');
    await input(page, edit, 'max_participants').press('Enter');
    await eventually(() => card.locator('.seats').first().textContent()).toBe('1 of 12 seats taken · 11 free · 0 on the wait list');
    await input(page, edit, 'max_participants')
      .count()
      .then((n) => expect(n).toBe(0));
    await page.selectOption('#calendar-filter select[name=location_id]', { label: 'Training hall' });
    await page.fill('#calendar-filter input[name=instructor]', 'kari');
    await page.click('#calendar-filter button[type=submit]');
    await eventually(() => page.locator('#calendar-list > li.event').count()).toBe(1);
    await page.fill('#calendar-filter input[name=instructor]', 'nobody');
    await page.click('#calendar-filter button[type=submit]');
    await eventually(() => page.locator('#calendar-list > li.event').count()).toBe(0);
    await page.fill('#calendar-filter input[name=instructor]', '');
    await page.selectOption('#calendar-filter select[name=location_id]', '');
    await page.click('#calendar-filter button[type=submit]');
    await eventually(() => card.count()).toBe(1);

    await card.locator(':scope > .node button.lock').click();
    await eventually(() => card.locator(':scope > .node .badge').allTextContents()).toEqual(['locked']);
    await eventually(() => focusedText(page)).toBe(`Unlock ${course}`);
    await page.keyboard.press('Enter');
    await eventually(() => card.locator(':scope > .node .badge').allTextContents()).toEqual([]);
  });

  it('Calendar: the month view shows the event on its day; choosing it shows its seats', async () => {
    await showEventMonth();
    const chip = page.locator(`#calendar-month td[data-day="${eventDay}"] button.event-chip[data-event-id="${ids.event}"]`);
    await eventually(() => chip.count()).toBe(1);
    expect(await chip.textContent()).toBe(`09:00 ${course}`);
    await chip.focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#calendar-month-detail .seats').first().textContent()).toBe('1 of 12 seats taken · 11 free · 0 on the wait list');
    await page.keyboard.press('Escape');
    await eventually(() => page.locator('#calendar-month-detail li.event').count()).toBe(0);
    expect(await focusedText(page)).toContain(course);
  });

  it('Calendar: cancelling with a reason marks the event and the participant finds the notice in the mailbox', async () => {
    await page.click('#calendar-list-view');
    const card = page.locator(`#calendar-list > li.event[data-event-id="${ids.event}"]`);
    await card.locator(':scope > .node button.cancel').click();
    await eventually(() => focusedId(page)).toMatch(/^f-reason-/);
    await page.keyboard.type('The instructor is ill');
    await page.click(`#cancel-form-${ids.event} button[type=submit]`);
    await eventually(() => card.locator(':scope > .node .badge').allTextContents()).toEqual(['cancelled']);
    // its module event with it
    expect(await card.locator('ul.events li.event .badge').allTextContents()).toEqual(['cancelled']);
    await eventually(() => focusedText(page)).toBe(`Uncancel ${course}`);
    await eventually(() => card.locator('.seats').first().textContent()).toBe('0 of 12 seats taken · 12 free · 0 on the wait list');
    const mail = await waitFor('the cancellation mail to ola', () =>
      bed.smtp.mails.find(
        (m) => m.rcptTo.includes('ola@acme.example') && String(m.headers.subject).startsWith('Cancelled') && `${m.headers.subject} ${m.body}`.includes(course),
      ),
    );
    expect(`${mail.headers.subject}\n${mail.body}`).toContain('The instructor is ill');
  });

  it('both sections are axe-clean, fit 375 px, and leave a screenshot each', async () => {
    fs.mkdirSync(RESULTS, { recursive: true });
    // the month view and an open form are part of what is checked
    await page.click('#calendar-month-view');
    await page.click('#event-new');
    await page.locator('#event-form').waitFor();
    for (const s of ['catalogue', 'calendar']) expect(await axeViolations(page, `#${s}`), s).toEqual([]);
    await expectFits375(page);
    await page.keyboard.press('Escape');
    await page.click('#calendar-list-view');
    await competenceNode(page, course).locator(':scope > .node button.edit').click();
    await page.locator(`#competence-form-${ids.course}`).waitFor();
    expect(await axeViolations(page, '#catalogue')).toEqual([]);
    await expectFits375(page);
    // the calendar as a month with the cancelled event chosen
    await showEventMonth();
    await page.click(`#calendar-month button.event-chip[data-event-id="${ids.event}"]`);
    await page.locator('#calendar-month-detail li.event').first().waitFor();
    for (const s of ['catalogue', 'calendar']) {
      const file = path.join(RESULTS, `admin-${s}.png`);
      await page.locator(`#${s}`).screenshot({ path: file });
      expect(fs.statSync(file).size).toBeGreaterThan(1000);
    }
    expect(await axeViolations(page, '#calendar')).toEqual([]);
    await expectFits375(page);
    await page.setViewportSize({ width: 375, height: 800 });
    await page.locator('#calendar').screenshot({ path: path.join(RESULTS, 'admin-calendar-375.png') });
    expect(bed.pageErrors).toEqual([]);
  });
});
