import { z } from 'zod';
import { define } from './config-item-define';

/**
 * The notice types a superuser may mark as required (issue 39 item 5). The kernel knows no module:
 * this is a copy of messaging's NOTICE_TYPES (src/messaging/notices/notice-types.ts), and a test
 * (test/messaging/notification-preferences.test.ts) fails when the two differ.
 */
export const REQUIRABLE_NOTICE_TYPES = [
  'login_created',
  'password_reset',
  'contact_changed',
  'sign_on',
  'sign_off',
  'event_changed',
  'waitlist_promotion',
  'event_cancelled',
  'expiry_reminder',
  'scheduled_report',
] as const;

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
  .transform((v) => Intl.getCanonicalLocales(v)[0]);

/**
 * Config items of the notices the product writes itself (issue 39): the tenant's language, the look of
 * its notice mails (src/messaging/notices), and the notices persons cannot turn off. CONFIG_ITEMS lists them.
 */
export const NOTICE_CONFIG_ITEMS = [
  define({
    id: 'messages.required_notices',
    section: 'messaging',
    description:
      'Notice types persons cannot turn off in their notification preferences (choosing none for one is a 420), e.g. expiry_reminder. ' +
      'They may still choose e-mail, SMS or both. The security notices (login_created, password_reset, contact_changed) are always required. ' +
      'Default: none beyond those.',
    type: 'string_list',
    schema: z
      .array(z.enum(REQUIRABLE_NOTICE_TYPES, { message: `must be one of ${REQUIRABLE_NOTICE_TYPES.join(', ')}` }))
      .max(REQUIRABLE_NOTICE_TYPES.length)
      .refine((types) => new Set(types).size === types.length, 'must not name a notice type twice'),
    default: [] as (typeof REQUIRABLE_NOTICE_TYPES)[number][],
    secret: false,
    readable: true,
  }),
  define({
    id: 'tenant.language',
    section: 'messaging',
    description:
      'Language (BCP 47, e.g. en, nb, sv) of the notices the product sends itself to persons who have no language of their own, ' +
      'or one the product has no texts for. Texts are shipped for en, nb and sv (nn and no use nb); otherwise English.',
    type: 'string',
    schema: languageTag,
    default: 'en',
    secret: false,
    readable: true,
  }),
  define({
    id: 'mail.brand_colour',
    section: 'messaging',
    description: "Colour (#rrggbb) of the band with the tenant's name at the top of notice mails (HTML part); null: a neutral dark grey (#333333).",
    type: 'string',
    schema: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour #rrggbb')
      .nullable(),
    default: null,
    secret: false,
    readable: true,
  }),
  define({
    id: 'mail.logo_url',
    section: 'messaging',
    description: "https URL of a logo image shown above notice mails (HTML part, alt text: the tenant's name); null: the tenant's name as text only.",
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
