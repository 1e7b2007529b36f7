import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { asAcme } from '../../support/login';
import { axeViolations, eventually, focusedId, focusedText, logInWithKeyboard, useConsoleBed } from './console-bed';

// A person's page in the People section (issue 39 item 6): their language and notification
// preferences, by keyboard, labelled, the locked (required) notices shown as such and offering no
// "none"; every change read back through the API.
const bed = useConsoleBed();
let page: Page;
beforeAll(() => {
  page = bed.page;
});
const api = () => asAcme(bed.t, bed.host, 'admin');

describe('admin console: language and notices of a person', () => {
  it('opens from the person row by keyboard, sets the language (a bad tag: the API 420 under the field) and the preferences', async () => {
    await logInWithKeyboard(bed, '#people');
    await page.locator('#org-tree button.org-name', { hasText: /^Operations$/ }).waitFor();
    await page.locator('#org-tree button.org-name', { hasText: /^Operations$/ }).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await focusedText(page)).toBe('Operations North');
    await page.keyboard.press('Enter');
    const olaRow = page.locator('#person-table tr[data-user-name="ola"]');
    await olaRow.waitFor();
    await olaRow.locator('button.messages').focus();
    expect(await focusedText(page)).toBe('Language and notices of ola');
    await page.keyboard.press('Enter');
    await eventually(() => focusedId(page)).toBe('person-language');

    // a malformed tag: the API's message under the field, which is marked invalid and keeps focus
    await page.keyboard.type('norsk!');
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#person-language-form .field-error').textContent()).toContain('person_data[language]');
    expect(await page.locator('#person-language').getAttribute('aria-invalid')).toBe('true');
    expect(await focusedId(page)).toBe('person-language');
    await page.fill('#person-language', 'NB');
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#person-messages-status').textContent()).toContain('saved');
    expect(await page.inputValue('#person-language')).toBe('nb');
    const person = async () => (await (await api()).get('/api/persons/ola?view=full')).body.persons[0];
    expect((await person()).language).toBe('nb');

    // the preferences: every notice type labelled; the locked ones say why and offer no "none"
    const types = await page.locator('#person-prefs-table tbody tr').evaluateAll((rows) => rows.map((r: any) => r.dataset.noticeType));
    expect(types).toContain('expiry_reminder');
    const reset = page.locator('#pref-password_reset');
    expect(await reset.locator('option').evaluateAll((o) => o.map((x: any) => x.value))).toEqual(['email', 'sms', 'both']);
    expect(await page.locator('#pref-password_reset-note').textContent()).toBe('required: a security notice');
    expect(await reset.getAttribute('aria-describedby')).toBe('pref-password_reset-note');
    expect(await page.locator('#pref-expiry_reminder option').evaluateAll((o) => o.map((x: any) => x.value))).toEqual(['email', 'sms', 'both', 'none']);
    expect(await page.locator('label[for="pref-expiry_reminder"]').textContent()).toBe('Competence about to expire');

    // by keyboard: focus the select, choose SMS, then save with Enter on the button
    await page.locator('#pref-expiry_reminder').focus();
    await page.selectOption('#pref-expiry_reminder', 'sms');
    await page.selectOption('#pref-sign_on', 'none');
    await page.locator('#person-prefs-form button[type=submit]').focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#person-messages-status').textContent()).toBe('notification preferences updated');
    const prefs = (await (await api()).get('/api/persons/ola/notificationpreferences')).body.notificationpreferences;
    expect(Object.fromEntries(prefs.filter((p: any) => p.chosen).map((p: any) => [p.notice_type, p.medium]))).toEqual({
      expiry_reminder: 'sms',
      sign_on: 'none',
    });

    expect(await axeViolations(page, '#person-messages')).toEqual([]);

    // Escape closes the panel; focus back on the row's button
    await page.locator('#pref-sign_on').focus();
    await page.keyboard.press('Escape');
    await eventually(() => page.locator('#person-messages').count()).toBe(0);
    expect(await focusedText(page)).toBe('Language and notices of ola');
    expect(bed.pageErrors).toEqual([]);
  });
});
