import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { asAcme } from '../../support/login';
import { axeViolations, eventually, expectFits375, focusedId, logInWithKeyboard, openForm, useConsoleBed } from './console-bed';

// The Catalogue's structure in Chromium on the real API: competence groups and categories
// (create, rename, delete), roles with their requirements (add, mandatory/optional, remove), and a
// location that events use, whose delete the API refuses (409, shown to the admin).
const bed = useConsoleBed();
let page: Page;
beforeAll(() => {
  page = bed.page;
});

describe('admin console: catalogue structure in Chromium', () => {
  it('competence groups: create, rename with the keyboard, delete after confirming', async () => {
    await logInWithKeyboard(bed, '#catalogue');
    await openForm(page, '#groups-tool button.new', 'name');
    await page.keyboard.type('Yard work');
    await page.keyboard.press('Enter');
    const group = page.locator('#groups-tool li', { hasText: 'Yard work' });
    await eventually(() => group.count()).toBe(1);
    await group.locator('button.edit').click();
    await eventually(() => focusedId(page)).toMatch(/^f-name-/);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Yard and warehouse');
    await page.keyboard.press('Enter');
    const renamed = page.locator('#groups-tool li', { hasText: 'Yard and warehouse' });
    await eventually(() => renamed.count()).toBe(1);
    // the first press asks, the second deletes
    await renamed.locator('button.delete').click();
    expect(await renamed.locator('button.delete').textContent()).toBe('Confirm delete');
    await renamed.locator('button.delete').click();
    await eventually(() => renamed.count()).toBe(0);
    // a group that holds competences is refused with the API's 409
    const hse = page.locator('#groups-tool li', { hasText: 'Fire safety' }).first();
    await hse.locator('button.delete').click();
    await hse.locator('button.delete').click();
    await eventually(() => page.locator('#groups-tool > .error').textContent()).toMatch(/competence/);
    expect(await hse.count()).toBe(1);
  });

  it('categories: one below another; it is offered below its parent, and a node is never offered as its own parent', async () => {
    await openForm(page, '#categories-tool button.new', 'name');
    await page.keyboard.type('Machines');
    await page.selectOption('#categories-form select[name=parent_id]', { label: '\u00a0\u00a0Yearly refresh' });
    await page.click('#categories-form button[type=submit]');
    await eventually(() => page.locator('#categories-tool li .title').allTextContents()).toEqual([
      'Mandatory training',
      'Yearly refresh',
      'Machines',
      'Leadership',
    ]);
    const machines = page.locator('#categories-tool li', { hasText: 'Machines' });
    expect(await machines.getAttribute('class')).toBe('depth-2');
    await page.locator('#categories-tool li', { hasText: 'Yearly refresh' }).locator('button.edit').click();
    const parents = await page.locator('#categories-tool li form select[name=parent_id] option').allTextContents();
    expect(parents.map((o) => o.trim())).toEqual(['(none: at the top)', 'Mandatory training', 'Leadership']);
    await page.keyboard.press('Escape');
  });

  it('roles: a new role requires a course, mandatory, then optional, then not at all', async () => {
    const admin = await asAcme(bed.t, bed.host, 'admin');
    await openForm(page, '#role-new', 'name');
    await page.keyboard.type('Forklift driver');
    await page.selectOption('#role-form select[name=meta_type]', 'position');
    await page.click('#role-form button[type=submit]');
    const role = page.locator('#role-list > li', { hasText: 'Forklift driver' });
    await eventually(() => role.locator('.badge').textContent()).toBe('position');
    const roleId = await role.getAttribute('data-role-id');
    await eventually(() => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label'))).toBe('Requirements of Forklift driver');
    await page.keyboard.press('Enter');
    expect(await role.locator('button.requirements').getAttribute('aria-expanded')).toBe('true');
    await role.locator('select[name=competence_id]').selectOption({ label: 'Leadership 101 (course)' });
    await role.locator('.requirement-form button[type=submit]').click();
    await eventually(() => role.locator('ul.requirements li .title').allTextContents()).toEqual(['Leadership 101']);
    const requirements = async () => (await admin.get(`/api/roles/${roleId}`)).body.roles[0].requirements;
    expect(await requirements()).toMatchObject([{ title: 'Leadership 101', mandatory: true }]);
    await role.locator('ul.requirements button.toggle').click();
    await eventually(async () => (await requirements())[0]?.mandatory).toBe(false);
    await eventually(() => role.locator('ul.requirements .badge').textContent()).toBe('optional');
    await role.locator('ul.requirements button.remove').click();
    await role.locator('ul.requirements button.remove').click();
    await eventually(requirements).toEqual([]);
    await eventually(() => role.locator('.requirements-panel p.meta').textContent()).toBe('no requirements yet');
    // Escape folds the requirements away and gives focus back to their button
    await role.locator('.requirement-form select').focus();
    await page.keyboard.press('Escape');
    expect(await role.locator('button.requirements').getAttribute('aria-expanded')).toBe('false');
  });

  it("locations: an edit is saved; one that events use is not deleted (the API's 409 is shown)", async () => {
    const oslo = page.locator('#location-list li', { hasText: 'Oslo HQ' });
    await oslo.locator('button.edit').click();
    const form = '#location-list form.entity-form';
    await page.fill(`${form} [name=capacity]`, '42');
    await page.press(`${form} [name=capacity]`, 'Enter');
    await eventually(() => oslo.locator('.meta').textContent()).toContain('42 seats');
    await oslo.locator('button.delete').click();
    await oslo.locator('button.delete').click();
    await eventually(() => page.locator('#locations-tool > .error').textContent()).toMatch(/event/);
    expect(await oslo.count()).toBe(1);
  });

  it('is axe-clean with a form and the requirements open, and fits 375 px', async () => {
    await page.click('#role-list > li:first-child button.requirements');
    await page.click('#categories-tool button.new');
    await page.locator('#categories-form').waitFor();
    expect(await axeViolations(page, '#catalogue')).toEqual([]);
    await expectFits375(page);
    expect(bed.pageErrors).toEqual([]);
  });
});
