/**
 * A person's language (issue 39): a BCP 47 tag (nb, sv, en-GB, zh-Hant-TW) in its canonical form
 * as Intl gives it (`EN-gb` is stored `en-GB`), or null when the tag is not well-formed. The runtime
 * (ICU) does the check, so no list of languages is kept here: a tag the product ships no texts for
 * is still the person's own (notices fall back to the tenant's language, then English).
 */
export function canonicalLanguageTag(tag: string): string | null {
  // Intl also takes extensions (-u-ca-...) and private use (x-...): a person's language is a language, region and script
  if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag) || tag.length > 35 || /-[xX](-|$)|-[uU]-/.test(tag)) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical ?? null;
  } catch {
    return null;
  }
}
