import { describe, expect, it } from 'vitest';
import { NOTICE_TYPES } from '../../../src/messaging/notices/notice-types';
import { defaultTexts, SHIPPED_LANGUAGES } from '../../../src/messaging/notices/notice-texts';
import { sampleData } from '../../../src/messaging/notices/notice-variables';
import { chooseLanguage } from '../../../src/messaging/notices/notice-language';
import { renderTexts } from '../../../src/messaging/notices/notice-renderer';
import { renderTemplate, TemplateError } from '../../../src/messaging/notices/notice-liquid';

const brand = { tenantName: 'Acme & Co', colour: '#0a5', logoUrl: null };

describe('shipped notice texts (i18next resource files, Liquid)', () => {
  it('ships en, nb and sv, each complete: every notice type renders with its sample data', async () => {
    expect([...SHIPPED_LANGUAGES].sort()).toEqual(['en', 'nb', 'sv']);
    for (const language of SHIPPED_LANGUAGES) {
      for (const type of NOTICE_TYPES) {
        const r = await renderTexts(defaultTexts(type, language), { tenant_name: 'Acme', ...sampleData(type) }, { language, timeZone: 'Europe/Oslo' }, brand);
        expect(r.title.length, `${language} ${type}`).toBeGreaterThan(3);
        expect(r.text.length, `${language} ${type}`).toBeGreaterThan(10);
        expect(r.html).toContain(`<html lang="${language}"`);
        expect(r.html).toContain('Acme &amp; Co');
      }
    }
    // the texts differ per language (no English left in the Norwegian file)
    expect(defaultTexts('expiry_reminder', 'nb').text).not.toBe(defaultTexts('expiry_reminder', 'en').text);
  });

  it('dates in the language format and the tenant zone', async () => {
    const place = (language: string) => ({ language, timeZone: 'Europe/Oslo' });
    expect(await renderTemplate('text', '{{ d | format_date }}', { d: '2026-04-30' }, place('nb'))).toBe('30. april 2026');
    expect(await renderTemplate('text', '{{ d | format_date }}', { d: '2026-04-30' }, place('sv'))).toBe('30 april 2026');
    expect(await renderTemplate('text', '{{ d | format_date }}', { d: '2026-04-30' }, place('en'))).toBe('30 April 2026');
    // 08:30 UTC is 10:30 in Oslo in summer
    expect(await renderTemplate('text', '{{ d | format_time }}', { d: '2026-06-01T08:30:00Z' }, place('nb'))).toBe('10:30');
  });

  it('language choice: the person, its fallback, the tenant, English', () => {
    const shipped = (l: string) => ['en', 'nb', 'sv'].includes(l);
    expect(chooseLanguage('nb-NO', 'sv', shipped)).toBe('nb');
    expect(chooseLanguage('nn', 'sv', shipped)).toBe('nb');
    expect(chooseLanguage('da', 'en', shipped)).toBe('nb');
    expect(chooseLanguage(null, 'sv-FI', shipped)).toBe('sv');
    expect(chooseLanguage('de', 'sv', shipped)).toBe('sv');
    expect(chooseLanguage('de', 'fi', shipped)).toBe('en');
    expect(chooseLanguage('not a tag!', null, shipped)).toBe('en');
    // a tenant's override in a language not shipped counts
    expect(chooseLanguage('de', 'en', (l) => l === 'de' || shipped(l))).toBe('de');
  });

  it('sandbox: file tags refused, unknown variables and endless loops cut off, with the line', async () => {
    const place = { language: 'en', timeZone: 'UTC' };
    const fail = async (src: string) => {
      try {
        await renderTemplate('text', src, { a: 1 }, place);
      } catch (err) {
        expect(err).toBeInstanceOf(TemplateError);
        return err as TemplateError;
      }
      throw new Error(`rendered: ${src}`);
    };
    expect((await fail("hello\n{% include '/etc/passwd' %}")).message).toMatch(/file access is not allowed.*line 2/);
    expect((await fail("{% render 'x' %}")).message).toMatch(/file access/);
    expect((await fail("{% layout 'x' %}")).message).toMatch(/file access/);
    expect((await fail('a\nb\n{{ nope }}')).message).toMatch(/undefined variable: nope.*line 3/);
    expect((await fail('{% for i in (1..1000000000) %}x{% endfor %}')).message).toMatch(/limit/);
    expect((await fail('{% for i in (1..2000) %}{% for j in (1..2000) %}{% for k in (1..2000) %}{{ k }}{% endfor %}{% endfor %}{% endfor %}')).message).toMatch(
      /limit|too long/,
    );
    expect((await fail('{{ a.constructor }}')).message).toMatch(/undefined variable/);
  });
});
