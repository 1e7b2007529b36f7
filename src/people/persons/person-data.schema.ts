import { isMatch } from 'date-fns';
import { z } from 'zod';
import { canonicalLanguageTag } from '../../platform/time/language-tag';

// Free-text fields: an empty value clears the field.
const text = (max = 200) =>
  z
    .preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().trim().max(max, `must be at most ${max} characters`))
    .transform((v) => (v === '' ? null : v));

const email = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .refine((v) => v === '' || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v), 'must be an e-mail address like name@example.com')
  .transform((v) => (v === '' ? null : v.toLowerCase()));

// Spaces and dashes are tolerated on input and removed, so mobiles are stored comparable.
const mobile = z
  .preprocess((v) => (typeof v === 'string' ? v.replace(/[\s-]/g, '') : v), z.string())
  .refine((v) => v === '' || /^\+\d{6,15}$/.test(v), 'must be + followed by 6 to 15 digits, e.g. +4790000012')
  .transform((v) => (v === '' ? null : v));

// BCP 47 (issue 39): stored in Intl's canonical form (EN-gb: en-GB); empty clears it
export const languageTag = z
  .string()
  .trim()
  .max(35, 'must be at most 35 characters')
  .refine((v) => v === '' || canonicalLanguageTag(v) !== null, 'must be a BCP 47 language tag such as nb, nn, sv, da, fi, en or en-GB')
  .transform((v) => (v === '' ? null : canonicalLanguageTag(v)));

const birthdate = z
  .string()
  .trim()
  .refine((v) => v === '' || isCalendarDate(v), 'must be an ISO date YYYY-MM-DD')
  // "not in the future" needs the tenant's today: PersonWriter checks it
  .transform((v) => (v === '' ? null : v));

function isCalendarDate(v: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(v) && isMatch(v, 'yyyy-MM-dd');
}

export const userName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9._@+-]{1,100}$/, 'must be 1-100 letters, digits or . _ @ + -');

export const newPassword = z.string().min(8, 'must be at least 8 characters').max(200, 'must be at most 200 characters');

/** The writable Person fields of the spec (except user_name/password, which have their own rules). */
export const PersonProfileShape = {
  firstname: text().optional(),
  lastname: text().optional(),
  jobtitle: text().optional(),
  mobile: mobile.optional(),
  email: email.optional(),
  birthdate: birthdate.optional(),
  extern_person_id: text().optional(),
  address: text(500).optional(),
  postcode: text(20).optional(),
  city: text().optional(),
  phone: text(50).optional(),
  sex: text(20).optional(),
  notice: text(4000).optional(),
  employee_code: text().optional(),
  profile_image: text(2000).optional(),
  source: text().optional(),
  code: text().optional(),
  language: languageTag.optional(),
};

export const PersonUpdateData = z
  .object({
    ...PersonProfileShape,
    user_name: userName.optional(),
    password: newPassword.optional(),
    // The spec lists these as update-only helper fields of Person; they are also accepted top-level.
    old_password: z.string().max(1000).optional(),
    password_match: z.string().max(1000).optional(),
  })
  .strict();
export type PersonUpdateData = z.infer<typeof PersonUpdateData>;

export const PersonCreateData = z.object({ ...PersonProfileShape, user_name: userName, password: newPassword.optional() }).strict();
export type PersonCreateData = z.infer<typeof PersonCreateData>;

/** The profile columns that are written as they are. */
export const PROFILE_COLUMNS = Object.keys(PersonProfileShape) as (keyof typeof PersonProfileShape)[];
