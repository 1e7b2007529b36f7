import { z } from 'zod';
import { DEFAULT_TIME_ZONE, isTimeZone } from '../time/time-zone';
import { define } from './config-item-define';
import { SWT_CONFIG_ITEMS } from './swt-config-items';
import { LIMIT_CONFIG_ITEMS } from './limits-config-items';
import { NOTICE_CONFIG_ITEMS } from './notice-config-items';

export interface ConfigItemDefinition<T = unknown> {
  id: string;
  description: string;
  /** Shown to tenant admins; also picks the input on the admin page. */
  type: 'int_or_null' | 'bool' | 'string' | 'string_list' | 'int_list' | 'origin_list' | 'host_list' | 'enum' | 'json';
  schema: z.ZodType<T>;
  default: T;
  /** Secrets are never returned through the API; only "set / not set" is shown. */
  secret: boolean;
  /** Whether GET /api/configitems may return it. */
  readable: boolean;
  options?: readonly string[];
  /** Where the admin page shows it; a new item must pick one, so it never lands nowhere. */
  section: ConfigSection;
  /** The safer value where the default keeps older tenants' behaviour; the admin page recommends it while the value differs. */
  recommended?: T;
}

export const CONFIG_SECTIONS = ['security', 'courses', 'messaging', 'integrations'] as const;
export type ConfigSection = (typeof CONFIG_SECTIONS)[number];

const origin = z
  .string()
  .url()
  .refine(
    (v) => {
      // zod runs refinements after a failed .url() too, so the parse must not throw.
      try {
        return new URL(v).origin === v;
      } catch {
        return false;
      }
    },
    { message: 'must be an origin: scheme://host[:port] with no path or trailing slash' },
  );
const hostName = z.string().regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i, 'must be a host name');
const sender = z.string().min(1).max(320);
const customAttribute = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/i, 'must be a letter followed by letters, digits or _'),
  label: z.string().min(1),
  type: z.enum(['string', 'number', 'boolean']).default('string'),
  applies_to: z.array(z.enum(['competence', 'event'])).min(1),
});
export type CustomAttributeDefinition = z.infer<typeof customAttribute>;

export const CONFIG_ITEMS = [
  define({
    id: 'tenant.timezone',
    description:
      'IANA time zone (e.g. Europe/Oslo) of the tenant\'s calendar: "today" for validity and expiry, ages, birthdates not in the future, ' +
      'and the date-only bounds of the changes feed, events and the security event log.',
    type: 'string',
    schema: z.string().refine(isTimeZone, 'must be an IANA time zone name such as Europe/Oslo or UTC'),
    default: DEFAULT_TIME_ZONE,
    secret: false,
    readable: true,
    // The calendar of validity, expiry and course dates; shown with the course settings.
    section: 'courses',
  }),
  define({
    id: 'password.max_age_days',
    section: 'security',
    description: 'Days a password stays valid; after that the user must change it (errorcode 418). Empty: never expires.',
    type: 'int_or_null',
    schema: z.number().int().min(1).max(3650).nullable(),
    default: null,
    secret: false,
    readable: true,
  }),
  define({
    id: 'order_system.enabled',
    section: 'courses',
    description: 'Sign-on may create an order (order_reference) or attach to one (order_id).',
    type: 'bool',
    schema: z.boolean(),
    default: false,
    secret: false,
    readable: true,
  }),
  define({
    id: 'cors.origins',
    section: 'security',
    description: "Browser origins allowed to call this tenant's API with credentials, e.g. https://intranet.example.com.",
    type: 'origin_list',
    schema: z.array(origin).max(100),
    default: [] as string[],
    secret: false,
    readable: true,
  }),
  define({
    id: 'custom_attributes',
    section: 'integrations',
    description: 'Customer-specific attributes of competences and events; filter with custom_attributes.<name>=<value>.',
    type: 'json',
    schema: z.array(customAttribute).max(100),
    default: [] as CustomAttributeDefinition[],
    secret: false,
    readable: true,
  }),
  define({
    id: 'api.rate_limit.per_minute',
    description:
      "Requests per minute one caller (a person; the client address before login) may send to this tenant's API; past it 429 with Retry-After. Empty: no limit.",
    type: 'int_or_null',
    schema: z.number().int().min(1).max(1_000_000).nullable(),
    default: 1200,
    secret: false,
    readable: true,
    section: 'integrations',
  }),
  ...SWT_CONFIG_ITEMS,
  define({
    id: 'signon.require_email',
    section: 'courses',
    description: 'Sign-on to events requires an e-mail address on the person (check_join reason required_fields).',
    type: 'bool',
    schema: z.boolean(),
    default: false,
    secret: false,
    readable: true,
  }),
  define({
    id: 'signon.require_mobile',
    section: 'courses',
    description: 'Sign-on to events requires a mobile number on the person (check_join reason required_fields).',
    type: 'bool',
    schema: z.boolean(),
    default: false,
    secret: false,
    readable: true,
  }),
  define({
    id: 'signon.block_overlapping',
    section: 'courses',
    description: 'Refuse sign-on to an event that overlaps one the person is already signed on to (conflicting_course).',
    type: 'bool',
    schema: z.boolean(),
    default: false,
    secret: false,
    readable: true,
  }),
  define({
    id: 'signon.forward_url_hosts',
    section: 'security',
    description: 'Host names that sign-on (GET /api/validate) may redirect to through forward_url.',
    type: 'host_list',
    schema: z.array(hostName).max(100),
    default: [] as string[],
    secret: false,
    readable: true,
  }),
  define({
    id: 'mail.from',
    section: 'messaging',
    description: 'Sender of this tenant\'s e-mail, e.g. "Acme Training <training@acme.example>".',
    type: 'string',
    schema: sender.nullable(),
    default: null,
    secret: false,
    readable: true,
  }),
  define({
    id: 'sms.from',
    section: 'messaging',
    description: "Sender of this tenant's SMS: a phone number in E.164 form or an alphanumeric sender id.",
    type: 'string',
    schema: z
      .string()
      .regex(/^(\+[1-9]\d{6,14}|[A-Za-z0-9 ]{1,11})$/, 'must be +<digits> or up to 11 letters/digits')
      .nullable(),
    default: null,
    secret: false,
    readable: true,
  }),
  define({
    id: 'messages.max_cc',
    section: 'messaging',
    description: 'Most cc addresses one POST /api/messages may name (more is a 420 on cc); keeps the API from becoming a mail relay.',
    type: 'int_or_null',
    schema: z.number().int().min(0).max(100),
    default: 10,
    secret: false,
    readable: true,
  }),
  define({
    id: 'messages.max_per_hour_per_sender',
    section: 'messaging',
    description: 'Messages a person who is not a superuser may send per hour (the hour starts with their first message); past it 429 with Retry-After.',
    type: 'int_or_null',
    schema: z.number().int().min(1).max(100_000),
    default: 100,
    secret: false,
    readable: true,
  }),
  define({
    id: 'reminders.days_before',
    section: 'messaging',
    description:
      "Expiry reminders: days before a registration's valid_until (in the tenant's calendar) at which the person is reminded, e.g. [30, 7]. " +
      'A scan finds registrations whose days left reached a threshold not yet reminded and sends one reminder (by the notification preference of the person for expiry_reminder: e-mail by default, SMS when the person has only a mobile); ' +
      'the thresholds it passed at once count as done too. A renewal starts afresh. Empty list: no reminders.',
    type: 'int_list',
    schema: z
      .array(z.number().int().min(1, 'must be a positive whole number of days').max(3650))
      .max(20)
      .refine((days) => new Set(days).size === days.length, 'must not name a number of days twice'),
    default: [30, 7] as number[],
    secret: false,
    readable: true,
  }),
  define({
    id: 'reports.max_schedules',
    section: 'messaging',
    description: 'Most report schedules (POST /api/reports/schedules) the tenant may have; past it a new one is a 409.',
    type: 'int_or_null',
    schema: z.number().int().min(0).max(10_000),
    default: 100,
    secret: false,
    readable: true,
  }),
  define({
    id: 'reminders.notify_manager',
    section: 'messaging',
    description: 'Expiry reminders by e-mail go in copy (cc) to the nearest manager above the person who has an e-mail address.',
    type: 'bool',
    schema: z.boolean(),
    default: true,
    secret: false,
    readable: true,
  }),
  ...LIMIT_CONFIG_ITEMS,
  ...NOTICE_CONFIG_ITEMS,
] as const;

export type ConfigItemId = (typeof CONFIG_ITEMS)[number]['id'];
type ItemById<I extends ConfigItemId> = Extract<(typeof CONFIG_ITEMS)[number], { id: I }>;
export type ConfigValue<I extends ConfigItemId> = ItemById<I>['default'];

const byId = new Map<string, ConfigItemDefinition>(CONFIG_ITEMS.map((d) => [d.id, d as ConfigItemDefinition]));

export function configItemDefinition(id: string): ConfigItemDefinition | undefined {
  return byId.get(id);
}

export function allConfigItemDefinitions(): ConfigItemDefinition[] {
  return [...byId.values()];
}

export class ConfigValueError extends Error {
  constructor(
    readonly itemId: string,
    readonly reason: string,
  ) {
    super(`config item ${itemId}: ${reason}`);
  }
}

/** Validates a value for an item; the error names the item and what is wrong. */
export function parseConfigValue(id: string, value: unknown): unknown {
  const def = byId.get(id);
  if (!def) throw new ConfigValueError(id, 'unknown config item');
  const result = def.schema.safeParse(value);
  if (!result.success) {
    const reason = result.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
    throw new ConfigValueError(id, reason);
  }
  return result.data;
}
