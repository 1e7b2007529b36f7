import { LANGUAGE_FALLBACKS } from './notice-texts';

/** The primary language subtag of a BCP 47 tag, lower case (`nb-NO` → `nb`); null for no or a malformed tag. */
export function primaryLanguage(tag: string | null | undefined): string | null {
  if (!tag) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag.trim());
    return canonical ? canonical.split('-')[0].toLowerCase() : null;
  } catch {
    return null;
  }
}

/**
 * The language a notice is written in: the first of the recipient's language, its fallback (nn, no,
 * da → nb), the tenant's `tenant.language`, its fallback, and English that has texts, either a
 * tenant's override of this notice or the shipped ones. Only the primary subtag counts (nb-NO → nb).
 */
export function chooseLanguage(recipient: string | null | undefined, tenant: string | null | undefined, hasTexts: (language: string) => boolean): string {
  const candidates: string[] = [];
  for (const tag of [recipient, tenant]) {
    const primary = primaryLanguage(tag);
    if (!primary) continue;
    candidates.push(primary);
    if (LANGUAGE_FALLBACKS[primary]) candidates.push(LANGUAGE_FALLBACKS[primary]);
  }
  return candidates.find(hasTexts) ?? 'en';
}
