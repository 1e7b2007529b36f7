import { z } from 'zod';
import { define } from './config-item-define';

/**
 * The notice types a superuser may mark as required (issue 39 item 5). The kernel knows no module:
 * this is a copy of messaging's NOTICE_TYPES (src/messaging/notices/notice-types.ts), and a test
 * (test/messaging/notification-preferences.test.ts) fails when the two differ.
 */
export const REQUIRABLE_NOTICE_TYPES = [
  'login_created', 'password_reset', 'contact_changed', 'sign_on', 'sign_off', 'event_changed', 'waitlist_promotion',
  'event_cancelled', 'expiry_reminder', 'scheduled_report',
] as const;

/** Config items of the notices the product sends itself and of persons' choice of medium. */
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
] as const;
