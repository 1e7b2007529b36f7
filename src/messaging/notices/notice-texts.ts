import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import i18next, { type i18n } from 'i18next';
import { NOTICE_TYPES, type NoticeType } from './notice-types';

/** A notice's texts: Liquid templates (the shipped defaults, or a tenant's override). */
export interface NoticeTexts {
  subject: string;
  text: string;
  /** The HTML body (inside the mail's frame); null: made from the text, paragraph by paragraph. */
  html: string | null;
}

const LOCALES_DIR = join(__dirname, 'locales');

/**
 * Languages whose texts are not shipped, read in a shipped one (the reader understands it better
 * than English): Nynorsk and the macro tag `no` read Bokmål; Danish readers read Bokmål with ease.
 * Every other language falls back to the tenant's language, then English (notice-language.ts).
 */
export const LANGUAGE_FALLBACKS: Record<string, string> = { nn: 'nb', no: 'nb', da: 'nb' };

/**
 * The shipped texts, one i18next resource file per language (`locales/<language>.json`, a key per
 * notice type with `subject` and `text`): a new language is a new file, found at start. i18next
 * holds them and resolves a key through the language's fallbacks. Its own interpolation is off: the
 * texts are Liquid templates, rendered like a tenant's override (notice-liquid.ts).
 */
function load(): { i18n: i18n; languages: string[] } {
  const files = readdirSync(LOCALES_DIR)
    .filter((f) => /^[a-z]{2,3}\.json$/.test(f))
    .sort();
  const resources = Object.fromEntries(files.map((f) => [f.slice(0, -5), { notices: JSON.parse(readFileSync(join(LOCALES_DIR, f), 'utf8')) }]));
  const languages = Object.keys(resources);
  const instance = i18next.createInstance();
  void instance.init({
    resources,
    ns: ['notices'],
    defaultNS: 'notices',
    fallbackLng: { ...Object.fromEntries(Object.entries(LANGUAGE_FALLBACKS).map(([l, to]) => [l, [to, 'en']])), default: ['en'] },
    supportedLngs: false,
    initImmediate: false,
    interpolation: { escapeValue: false, skipOnVariables: true, prefix: '\u0000{', suffix: '}\u0000' },
    nsSeparator: false,
    keySeparator: '.',
    returnNull: false,
    showSupportNotice: false,
  } as never);
  for (const language of languages) {
    for (const type of NOTICE_TYPES) {
      for (const part of ['subject', 'text'] as const) {
        if (typeof instance.getResource(language, 'notices', `${type}.${part}`) !== 'string')
          throw new Error(`notice texts: locales/${language}.json lacks ${type}.${part}`);
      }
    }
  }
  return { i18n: instance, languages };
}

const loaded = load();

/** The languages the product ships texts for (`en`, `nb`, `sv`, ...: the files in locales/). */
export const SHIPPED_LANGUAGES: readonly string[] = loaded.languages;

/** The shipped texts of `type` in `language` (a shipped language, or one i18next falls back from). */
export function defaultTexts(type: NoticeType, language: string): NoticeTexts {
  const t = loaded.i18n.getFixedT(language, 'notices');
  return { subject: t(`${type}.subject`), text: t(`${type}.text`), html: null };
}
