import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { asAcme } from '../../support/login';
import { RESULTS, axeViolations, eventually, expectFits375, focusedId, focusedText, logInWithKeyboard, useConsoleBed } from './console-bed';

// The People section in Chromium on the real API: the organisation tree by keyboard (arrows open,
// close and move), an organisation renamed and moved (never below itself), a delete refused with
// the API's 409 and an empty one deleted, managers added (an unknown user name's 404 under the
// field) and removed, persons searched and filtered by state, a leaver deactivated and reactivated
// after confirming; each change read back through the API.
const bed = useConsoleBed((doc) => {
  doc.organisations[0].children.find((o: any) => o.ref === 'acme-hr').children = [{ ref: 'acme-temp', name: 'Temporary unit' }];
});
let page: Page;
beforeAll(() => {
  page = bed.page;
});
const tree = (name: string) => page.locator('#org-tree button.org-name', { hasText: new RegExp(`^${name}$`) });
const api = () => asAcme(bed.t, bed.host, 'admin');
async function organisationId(name: string): Promise<number> {
  const res = await (await api()).get('/api/organisations?limit=100');
  return res.body.organisations.find((o: any) => o.name === name).organisation_id;
}

describe('admin console: people in Chromium', () => {
  it('the organisation tree opens and closes with the arrow keys; Enter chooses one and shows its persons', async () => {
    await logInWithKeyboard(bed, '#people');
    await tree('Acme Industries').waitFor();
    // the roots are open: two levels show
    expect(await page.locator('#org-tree button.org-name').allTextContents()).toEqual(['Acme Industries', 'Human Resources', 'Operations']);
    await tree('Acme Industries').focus();
    await page.keyboard.press('End');
    expect(await focusedText(page)).toBe('Operations');
    await page.keyboard.press('ArrowRight');
    await eventually(() => page.locator('#org-tree button.org-name').allTextContents()).toEqual([
      'Acme Industries',
      'Human Resources',
      'Operations',
      'Operations North',
      'Operations South',
    ]);
    expect(await focusedText(page)).toBe('Operations');
    expect(
      await page.locator('#org-tree li:has(> .node > button.org-name:text-is("Operations")) > .node > button.org-toggle').getAttribute('aria-expanded'),
    ).toBe('true');
    await page.keyboard.press('ArrowRight');
    expect(await focusedText(page)).toBe('Operations North');
    await page.keyboard.press('ArrowLeft');
    expect(await focusedText(page)).toBe('Operations');
    await page.keyboard.press('ArrowLeft');
    await eventually(() => page.locator('#org-tree button.org-name').count()).toBe(3);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await eventually(() => focusedId(page)).toBe('h-org-detail');
    expect(await page.locator('#h-org-detail').textContent()).toBe('Operations North');
    expect(await tree('Operations North').getAttribute('aria-current')).toBe('true');
    await eventually(() => page.locator('#person-table tbody tr').evaluateAll((rows) => rows.map((r: any) => r.dataset.userName))).toEqual(['nils', 'ola']);
  });

  it('persons: search and state filter; deactivate and reactivate after confirming (read back through the API)', async () => {
    await page.fill('#person-filter input[name=term]', 'Dahl');
    await page.press('#person-filter input[name=term]', 'Enter');
    await eventually(() => page.locator('#person-table tbody tr').count()).toBe(1);
    const nils = page.locator('#person-table tr[data-user-name="nils"]');
    await nils.locator('button.deactivate').focus();
    await page.keyboard.press('Enter');
    expect(await focusedText(page)).toBe('Confirm deactivate nils');
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#person-status').textContent()).not.toBe('');
    // gone from the active list; focus back in the search field
    await eventually(() => page.locator('#person-count').textContent()).toBe('no persons match');
    expect(await focusedText(page)).toBe('');
    const person = async () => (await (await api()).get('/api/persons/nils')).body.persons[0];
    expect(await person()).toMatchObject({ deactivated: true });
    await page.selectOption('#person-filter select[name=state]', 'deactivated');
    await page.press('#person-filter input[name=term]', 'Enter');
    await eventually(() => nils.locator('td.state').textContent()).toMatch(/^deactivated/);
    await nils.locator('button.reactivate').click();
    await nils.locator('button.reactivate').click();
    await eventually(async () => (await person()).deactivated).toBe(false);
    await page.selectOption('#person-filter select[name=state]', 'all');
    await page.fill('#person-filter input[name=term]', '');
    await page.press('#person-filter input[name=term]', 'Enter');
    await eventually(() => page.locator('#person-table td.state').allTextContents()).toEqual(['active', 'active']);
    // the search is the API's: term on GET /api/persons (names, user name, e-mail, employee code)
    const found = await (await api()).get('/api/persons?term=nordm');
    expect(found.body.persons.map((p: any) => p.user_name)).toEqual(['kari']);
  });

  it("managers: added by user name (an unknown one gets the API's 404 under the field), removed after confirming", async () => {
    const north = await organisationId('Operations North');
    const managers = async () => (await (await api()).get(`/api/organisations/${north}/managers`)).body.managers.map((m: any) => m.user_name);
    await page.locator('#manager-add input[name=user_name]').focus();
    await page.keyboard.type('nobody');
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#manager-add .field-error').textContent()).toMatch(/nobody.*not found|not found.*nobody/);
    expect(await page.locator('#manager-add input').getAttribute('aria-invalid')).toBe('true');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('per');
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#manager-list li').evaluateAll((li) => li.map((l: any) => l.dataset.userName))).toEqual(['per']);
    expect(await page.locator('#manager-add .field-error').textContent()).toBe('');
    expect(await managers()).toEqual(['per']);
    await page.locator('#manager-list li[data-user-name=per] button.remove').click();
    expect(await focusedText(page)).toBe('Confirm remove per as manager of Operations North');
    await page.keyboard.press('Enter');
    await eventually(managers).toEqual([]);
    await eventually(() => page.locator('#manager-list li.meta').count()).toBe(1);
  });

  it('rename and move: never below itself; the tree and the API follow', async () => {
    await tree('Operations').click();
    await eventually(() => page.locator('#h-org-detail').textContent()).toBe('Operations');
    await page.locator('#org-detail button.org-edit').focus();
    await page.keyboard.press('Enter');
    await eventually(() => focusedId(page)).toMatch(/^f-name-/);
    const options = await page.locator('#org-detail select[name=parent_id] option').allTextContents();
    expect(options.map((o) => o.trim())).toEqual(['(none: at the top)', 'Acme Industries', 'Human Resources', 'Temporary unit']);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Operations and Logistics');
    await page.selectOption('#org-detail select[name=parent_id]', { label: '\u00a0\u00a0Human Resources' });
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#h-org-detail').textContent()).toBe('Operations and Logistics');
    await eventually(() => focusedText(page)).toBe('Rename or move Operations and Logistics');
    const ops = (await (await api()).get(`/api/organisations/${await organisationId('Operations and Logistics')}`)).body.organisations[0];
    expect(ops).toMatchObject({ name: 'Operations and Logistics', parent: { name: 'Human Resources' } });
    // shown below Human Resources, with its own subtree
    expect(await page.locator('#org-tree li:has(> .node > button.org-name:text-is("Human Resources")) button.org-name').allTextContents()).toEqual([
      'Human Resources',
      'Operations and Logistics',
      'Operations North',
      'Operations South',
      'Temporary unit',
    ]);
    expect(await page.locator('#org-detail .meta').first().textContent()).toContain('in Human Resources');
  });

  it("delete: one holding persons is refused with the API's 409; an empty one is deleted", async () => {
    await tree('Operations South').click();
    await eventually(() => page.locator('#h-org-detail').textContent()).toBe('Operations South');
    await page.locator('#org-detail button.delete').click();
    await page.locator('#org-detail button.delete').click();
    await eventually(() => page.locator('#org-detail-error').textContent()).toMatch(/person/);
    await tree('Temporary unit').click();
    await eventually(() => page.locator('#h-org-detail').textContent()).toBe('Temporary unit');
    await page.locator('#org-detail button.delete').click();
    await page.locator('#org-detail button.delete').click();
    await eventually(() => tree('Temporary unit').count()).toBe(0);
    expect(await page.locator('#org-status').textContent()).not.toBe('');
    expect(await page.locator('#org-detail').isHidden()).toBe(true);
  });

  it('is axe-clean with a form open, fits 375 px, and leaves a screenshot', async () => {
    await tree('Operations North').click();
    await page.locator('#person-table tbody tr').first().waitFor();
    await page.locator('#org-detail button.org-edit').click();
    await page.locator('#org-detail form.entity-form').waitFor();
    expect(await axeViolations(page, '#people')).toEqual([]);
    await expectFits375(page);
    await page.keyboard.press('Escape');
    fs.mkdirSync(RESULTS, { recursive: true });
    const file = path.join(RESULTS, 'admin-people.png');
    await page.locator('#people').screenshot({ path: file });
    expect(fs.statSync(file).size).toBeGreaterThan(1000);
    // on a phone the chosen organisation comes below the tree
    await page.setViewportSize({ width: 375, height: 800 });
    await page.locator('#people').screenshot({ path: path.join(RESULTS, 'admin-people-375.png') });
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(bed.pageErrors).toEqual([]);
  });
});
