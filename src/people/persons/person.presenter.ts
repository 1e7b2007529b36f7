import { z } from 'zod';
import type { PersonDetails } from './persons.repository';
import type { PersonRow } from '../person-row';
import { passwordChangeReason } from './password-state';

const isoDateTime = () => z.string().describe('ISO 8601 date-time');
const OrganisationRef = z.object({ organisation_id: z.number().int(), name: z.string() });

/**
 * One Person: the simple fields always, the rest only in the full view (single objects default
 * to full, lists to simple). Credentials (password hash, pending passwords) are never returned.
 */
export const PersonView = z
  .object({
    person_id: z.number().int(),
    user_name: z.string(),
    firstname: z.string().nullable(),
    lastname: z.string().nullable(),
    jobtitle: z.string().nullable(),
    email: z.string().nullable().describe('stored lower-case'),
    mobile: z.string().nullable().describe('+ and 6-15 digits'),
    organisation_id: z.number().int().nullable().describe('the organisation the person is a member of'),
    employee_code: z.string().nullable(),
    birthdate: z.string().nullable().optional().describe('calendar date YYYY-MM-DD (full view)'),
    extern_person_id: z.string().nullable().optional(),
    address: z.string().nullable().optional(),
    postcode: z.string().nullable().optional(),
    city: z.string().nullable().optional(),
    phone: z.string().nullable().optional(),
    sex: z.string().nullable().optional(),
    notice: z.string().nullable().optional(),
    profile_image: z.string().nullable().optional(),
    source: z.string().nullable().optional(),
    code: z.string().nullable().optional(),
    language: z
      .string()
      .nullable()
      .optional()
      .describe('BCP 47 language tag (nb, sv, en-GB) in canonical form; notices are written in it where texts exist, else the tenant\'s language (full view)'),
    superuser: z.boolean().optional().describe('may do everything in the tenant (full view)'),
    superadmin: z.boolean().optional().describe("the spec's superadmin: reads every role, filters competences by organisation, lists everyone's sign-ons (full view)"),
    organisation: OrganisationRef.nullable().optional().describe('the member organisation (full view)'),
    roles: z
      .array(z.object({ role_id: z.number().int(), name: z.string(), meta_type: z.string().describe('role, specialrole or position') }))
      .optional()
      .describe('roles held (full view)'),
    manages: z
      .array(OrganisationRef)
      .optional()
      .describe('organisations the person is directly assigned to manage; the subtrees below count too (full view)'),
    password_changed_at: isoDateTime().nullable().optional().describe('ISO 8601 date-time; when the person last set their own password (full view)'),
    must_change_password: z
      .enum(['expired', 'changed_by_other', 'sent_by_mail'])
      .nullable()
      .optional()
      .describe('why the person must choose a new password before anything else (418); null when not (full view)'),
    deactivated: z.boolean().optional().describe('the person is deactivated: cannot log in, left out of lists unless state=deactivated or all (full view)'),
    deactivated_at: isoDateTime().nullable().optional().describe('ISO 8601 date-time of the deactivation; null while active (full view)'),
    created_at: isoDateTime().optional(),
    updated_at: isoDateTime().optional(),
  })
  .describe(
    'Person. Simple view: person_id, user_name, firstname, lastname, jobtitle, email, mobile, organisation_id, employee_code; ' +
      'full view adds every other stored field, organisation, roles, manages, the password state and deactivated / deactivated_at. Password hashes are never shown.',
  );

/** List view: who the person is and how to reach them. */
export function presentPersonSimple(p: Pick<PersonRow, 'id' | 'user_name' | 'firstname' | 'lastname' | 'jobtitle' | 'email' | 'mobile' | 'organisation_id' | 'employee_code'>) {
  return {
    person_id: p.id,
    user_name: p.user_name,
    firstname: p.firstname,
    lastname: p.lastname,
    jobtitle: p.jobtitle,
    email: p.email,
    mobile: p.mobile,
    organisation_id: p.organisation_id,
    employee_code: p.employee_code,
  };
}

/**
 * Single-object view: every stored field except credentials, plus organisation, roles and managed
 * organisations. must_change_password is the effective reason, so an expired password shows as
 * 'expired' though nothing is stored (`maxAgeDays`: the tenant's password.max_age_days).
 */
export function presentPersonFull(p: PersonRow, d: PersonDetails, maxAgeDays: number | null) {
  return {
    ...presentPersonSimple(p),
    birthdate: p.birthdate,
    extern_person_id: p.extern_person_id,
    address: p.address,
    postcode: p.postcode,
    city: p.city,
    phone: p.phone,
    sex: p.sex,
    notice: p.notice,
    profile_image: p.profile_image,
    source: p.source,
    code: p.code,
    language: p.language,
    superuser: p.superuser,
    superadmin: p.superadmin,
    organisation: d.organisation ? { organisation_id: d.organisation.id, name: d.organisation.name } : null,
    roles: d.roles.map((r) => ({ role_id: r.id, name: r.name, meta_type: r.meta_type })),
    manages: d.manages.map((o) => ({ organisation_id: o.id, name: o.name })),
    password_changed_at: p.password_changed_at,
    must_change_password: passwordChangeReason(p, maxAgeDays),
    deactivated: p.deactivated_at !== null,
    deactivated_at: p.deactivated_at,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}
