import { z } from 'zod';
import { define } from './config-item-define';

/** A BCP 47 language tag that Intl accepts, kept in its canonical form (`nb-no` → `nb-NO`). */
const languageTag = z
  .string()
  .min(2)
  .max(35)
  .refine((v) => {
    try {
      return Intl.getCanonicalLocales(v).length === 1;
    } catch {
      return false;
    }
  }, 'must be a BCP 47 language tag such as en, nb, sv or nb-NO')
  .transform((v) => Intl.getCanonicalLocales(v)[0]!);

/**
 * The tenant's language and the look of its notice mails (issue 39 items 3 and 4): the notices the
 * product writes itself (src/messaging/notices). CONFIG_ITEMS lists them.
 */
export const NOTICE_CONFIG_ITEMS = [
  define({
    id: 'tenant.language',
    section: 'messaging',
    description:
      'Language (BCP 47, e.g. en, nb, sv) of the notices the product sends itself to persons who have no language of their own, ' +
      'or one the product has no texts for. Texts are shipped for en, nb and sv (nn and no use nb); otherwise English.',
    type: 'string',
    schema: languageTag as unknown as z.ZodType<string>,
    default: 'en',
    secret: false,
    readable: true,
  }),
  define({
    id: 'mail.brand_colour',
    section: 'messaging',
    description: 'Colour (#rrggbb) of the band with the tenant\'s name at the top of notice mails (HTML part); null: a neutral dark grey (#333333).',
    type: 'string',
    schema: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour #rrggbb').nullable(),
    default: null,
    secret: false,
    readable: true,
  }),
  define({
    id: 'mail.logo_url',
    section: 'messaging',
    description: 'https URL of a logo image shown above notice mails (HTML part, alt text: the tenant\'s name); null: the tenant\'s name as text only.',
    type: 'string',
    schema: z
      .string()
      .max(2000)
      .refine((v) => {
        try {
          return new URL(v).protocol === 'https:';
        } catch {
          return false;
        }
      }, 'must be an https URL')
      .nullable(),
    default: null,
    secret: false,
    readable: true,
  }),
] as const;
