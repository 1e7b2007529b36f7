import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject, p } from '../../platform/http/param-types';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { AuditTrail } from '../../platform/audit';
import { policies } from '../../people';
import { NOTICE_TYPES, NotificationPreferences, PREFERENCE_MEDIA, SECURITY_NOTICE_TYPES, type NoticeType, type PreferenceMedium } from '../../messaging';

const userNameParam = p.string(200).min(1, 'must not be empty');
const medium = z.enum(PREFERENCE_MEDIA);

const PreferenceOut = z
  .object({
    notice_type: z.enum(NOTICE_TYPES),
    medium: medium.describe('what the notice goes by for this person: their choice, else the default'),
    default: medium.describe('the medium without a choice: email (else SMS when the person has no e-mail)'),
    chosen: z.boolean().describe('the person (or a superuser) chose the medium; false: the default'),
    required: z.boolean().describe('cannot be turned off (none is a 420)'),
    required_by: z.enum(['security', 'tenant']).nullable().describe('security: a security notice; tenant: the config item messages.required_notices'),
  })
  .describe('A notice type and how it reaches the person');

const RULES =
  'Per notice type: email, sms, both (two deliveries) or none (no message). The chosen medium is used when the person has its address, ' +
  'else the other one (a missing address falls back, as before preferences); none stops the notice. Security notices (' +
  `${SECURITY_NOTICE_TYPES.join(', ')}) and the types in the tenant's config item messages.required_notices cannot be turned off. ` +
  'A password mail goes by one medium even for both (e-mail; each delivery would make a password of its own).';

/** A choice of one type: one of the media, or "" / default for the default. */
const choice = z
  .string()
  .trim()
  .refine(
    (v) => v === '' || v === 'default' || (PREFERENCE_MEDIA as readonly string[]).includes(v),
    `must be one of ${PREFERENCE_MEDIA.join(', ')} (or default)`,
  )
  .transform((v) => (v === '' || v === 'default' ? null : (v as PreferenceMedium)));

const Choices = z.object(Object.fromEntries(NOTICE_TYPES.map((t) => [t, choice.optional()])) as Record<NoticeType, z.ZodOptional<typeof choice>>).strict();

export const notificationPreferenceRoutes = [
  defineRoute({
    method: 'get',
    path: '/persons/:user_name/notificationpreferences',
    access: policies.selfOrSuperuser('user_name', "see this person's notification preferences"),
    resource: 'notificationpreferences',
    summary: 'How each notice type reaches the person: e-mail, SMS, both or none. Security: superuser, self',
    description: `Every notice type, with the person's medium, the default and whether it is required. ${RULES} Others: 403; unknown user_name (or another tenant's): 404.`,
    input: z.object({ user_name: userNameParam }),
    output: PreferenceOut,
    async handler(ctx) {
      return { items: await ctx.resolve(NotificationPreferences).list(ctx.target.id) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/persons/:user_name/notificationpreferences',
    access: policies.selfOrSuperuser('user_name', "change this person's notification preferences"),
    resource: 'notificationpreferences',
    summary: 'Choose how notice types reach the person. Security: superuser, self',
    description:
      'preferences: bracket form (preferences[expiry_reminder]=sms), a JSON object or JSON text, by notice type; only the types given change, ' +
      `"" or default goes back to the default. An unknown type or medium is a 420 naming preferences[type]; none for a required type is a 420 naming ` +
      `each such preferences[type], and nothing changes. ${RULES} A superuser's change of someone else's preferences is in the security event log ` +
      '(notification_preferences.changed). Answers every notice type as GET does.',
    input: z.object({ user_name: userNameParam, preferences: z.preprocess(jsonObject, Choices) }),
    output: PreferenceOut,
    idempotencyKey: true,
    keepsAccounts: true,
    async handler(ctx, input) {
      const target = ctx.target;
      const items = await ctx.resolve(UnitOfWork).run(async (tx) => {
        const prefs = tx.get(NotificationPreferences);
        const changed = await prefs.update(target.id, input.preferences);
        if (Object.keys(changed).length && ctx.user.personId !== target.id) {
          await tx
            .get(AuditTrail)
            .record({ type: 'notification_preferences.changed', actor: ctx.user.userName, subject: target.user_name, details: { changed } });
        }
        return prefs.list(target.id);
      });
      return { message: 'notification preferences updated', items };
    },
  }),
];
