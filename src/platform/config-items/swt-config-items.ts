import { z } from 'zod';
import { define } from './config-item-define';

/** The SWT single sign-on items (api.oauth.*); CONFIG_ITEMS lists them in their place among the others. */
export const SWT_CONFIG_ITEMS = [
  define({
    id: 'api.oauth.secret',
    section: 'security',
    description: 'Shared key for SWT single sign-on (Authorization: SWT ...). Write-only.',
    type: 'string',
    schema: z.string().min(16, 'must be at least 16 characters').max(1024).nullable(),
    default: null,
    secret: true,
    readable: false,
  }),
  define({
    id: 'api.oauth.secret_encoding',
    section: 'security',
    description: 'How api.oauth.secret becomes key bytes: text (UTF-8 bytes of the string) or base64 (decoded).',
    type: 'enum',
    options: ['text', 'base64'] as const,
    schema: z.enum(['text', 'base64']),
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the assertion widens the default, from which the item's value type is inferred
    default: 'text' as 'text' | 'base64',
    secret: false,
    readable: true,
  }),
  define({
    id: 'api.oauth.previous_secret',
    section: 'security',
    description:
      'The SWT key before the current api.oauth.secret (same encoding). While set, tokens signed with it are accepted too, ' +
      'so the key can be rotated without downtime: set the new key as secret and the old one here, then clear this. Write-only.',
    type: 'string',
    schema: z.string().min(16, 'must be at least 16 characters').max(1024).nullable(),
    default: null,
    secret: true,
    readable: false,
  }),
  define({
    id: 'api.oauth.require_expires_on',
    section: 'security',
    description:
      'SWT tokens without ExpiresOn are refused. Tenants created since issue 40 start with true; older tenants keep false (the SWT specification ' +
      'makes ExpiresOn optional) until turned on, which the admin console recommends: a token without expiry is a password.',
    type: 'bool',
    schema: z.boolean(),
    default: false,
    recommended: true,
    secret: false,
    readable: true,
  }),
  define({
    id: 'api.oauth.max_token_lifetime_seconds',
    section: 'security',
    description: 'An SWT token whose ExpiresOn lies further ahead than now plus this many seconds is refused (a token valid for years is a password).',
    type: 'int_or_null',
    schema: z
      .number()
      .int()
      .min(60)
      .max(31 * 86400),
    default: 86400,
    secret: false,
    readable: true,
  }),
  define({
    id: 'api.oauth.issuer',
    section: 'security',
    description: 'Expected Issuer of SWT tokens; a token with another Issuer is refused. Empty: any issuer.',
    type: 'string',
    schema: z.string().min(1).max(500).nullable(),
    default: null,
    secret: false,
    readable: true,
  }),
  define({
    id: 'api.oauth.user_name_key',
    section: 'security',
    description: 'SWT parameter that carries the user name (besides username and user_name).',
    type: 'string',
    schema: z.string().regex(/^[\w.-]{1,100}$/, 'must be a parameter name'),
    default: 'username',
    secret: false,
    readable: true,
  }),
  define({
    id: 'api.oauth.person_id_key',
    section: 'security',
    description: 'SWT parameter that carries the internal person id (besides person_id).',
    type: 'string',
    schema: z.string().regex(/^[\w.-]{1,100}$/, 'must be a parameter name'),
    default: 'person_id',
    secret: false,
    readable: true,
  }),
  define({
    id: 'api.oauth.extern_person_id_key',
    section: 'security',
    description: 'SWT parameter that carries the external person id (besides external_person_id).',
    type: 'string',
    schema: z.string().regex(/^[\w.-]{1,100}$/, 'must be a parameter name'),
    default: 'external_person_id',
    secret: false,
    readable: true,
  }),
  define({
    id: 'api.oauth.clock_skew_seconds',
    section: 'security',
    description: 'Seconds of clock difference tolerated when checking SWT ExpiresOn.',
    type: 'int_or_null',
    schema: z.number().int().min(0).max(600),
    default: 60,
    secret: false,
    readable: true,
  }),
] as const;

/**
 * Values a tenant created from now on starts with, where the default stays what older tenants had
 * (an unset item is the default, so changing a default would change every existing tenant).
 */
export const NEW_TENANT_CONFIG: Readonly<Record<string, unknown>> = { 'api.oauth.require_expires_on': true };
