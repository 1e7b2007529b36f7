import { describe, expect, it } from 'vitest';
import { asAcme } from '../../support/login';
import { axeViolations, eventually, expectFits375, focusedId, logInWithKeyboard, useConsoleBed } from './console-bed';

// Messaging's notice texts in Chromium on the real API (issue 39 item 6): the list of notice types,
// the editor per language by keyboard, the live preview (server-rendered with sample data), an
// error with its line on the field, save and back to the shipped text; read back through the API.
const bed = useConsoleBed();

describe('console: notice texts (Messaging)', () => {
  it('lists every notice, edits one per language with live preview, shows errors with the line, saves and resets', async () => {
    await logInWithKeyboard(bed, '#messaging');
    const { page } = bed;
    await page.locator('#template-rows tr').first().waitFor();
    expect(await page.locator('#template-rows tr').count()).toBe(10);
    expect(await page.locator('#template-rows tr[data-type="expiry_reminder"] th').textContent()).toBe('expiry_reminder');

    // keyboard: focus the Edit button, Enter opens the editor with the language select focused
    await page.locator('#template-rows tr[data-type="expiry_reminder"] button.edit-template').focus();
    await page.keyboard.press('Enter');
    await eventually(() => focusedId(page)).toBe('template-language');
    await page.locator('#template-language').selectOption('nb');
    await eventually(() => page.locator('#template-subject').inputValue()).toMatch(/^Påminnelse: /);
    // the preview of the shipped Norwegian text, with a Norwegian date
    await eventually(() => page.locator('#preview-text').textContent()).toContain('30. april 2026');

    // live preview of an unsaved change
    await page.locator('#template-subject').fill('Husk {{ competence_title }}');
    await eventually(() => page.locator('#preview-subject').textContent()).toBe('Husk Forklift licence');
    // an unknown variable: the error names the field and the line, the field is marked
    await page.locator('#template-text').fill('Hei\n{{ lønn }}');
    await eventually(() => page.locator('#template-error').textContent()).toMatch(/messagetemplate_data\[text\].*line 2/);
    expect(await page.locator('#template-text').getAttribute('aria-invalid')).toBe('true');
    expect(await axeViolations(page, '#messaging')).toEqual([]);
    await expectFits375(page);

    await page.locator('#template-text').fill('Hei {{ user_name }}: {{ competence_title }} går ut {{ valid_until | format_date }}.');
    await eventually(() => page.locator('#preview-text').textContent()).toBe('Hei kari.nordmann: Forklift licence går ut 30. april 2026.');
    expect(await page.locator('#template-text').getAttribute('aria-invalid')).toBeNull();
    await page.locator('#template-save').click();
    await eventually(() => page.locator('#templates-status').textContent()).toMatch(/saved/);
    await eventually(() => page.locator('#template-rows tr[data-type="expiry_reminder"] .own-languages').textContent()).toBe('nb');

    const admin = await asAcme(bed.t, bed.host, 'admin');
    const listed = (await admin.get('/api/messagetemplates')).body.messagetemplates.find((x: any) => x.type === 'expiry_reminder');
    expect(listed.overrides).toEqual([expect.objectContaining({ language: 'nb', subject: 'Husk {{ competence_title }}' })]);

    // back to the shipped text
    await page.locator('#template-reset').click();
    await eventually(() => page.locator('#template-subject').inputValue()).toMatch(/^Påminnelse: /);
    expect((await admin.get('/api/messagetemplates')).body.messagetemplates.find((x: any) => x.type === 'expiry_reminder').overrides).toEqual([]);
    expect(bed.pageErrors).toEqual([]);
  });
});
