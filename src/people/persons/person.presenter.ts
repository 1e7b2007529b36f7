import { z } from 'zod';
import type { PersonDetails } from './persons.repository';
import type { PersonRow } from '../person-row';
import { passwordChangeReason } from './password-state';

const isoDateTime = () => z.string().describe('ISO 8601 date-time');
const OrganisationRef = z.object({ organisation_id: z.number().int(), name: z.string() });

/** Person, simple view: who the person is and how to reach them (lists default to it). */
export const Person = z
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
  })
  .describe(
    'Person, simple view (lists by default, view=simple): person_id, user_name, firstname, lastname, jobtitle, email, mobile, organisation_id, employee_code.',
  )
  .meta({ id: 'Person' });

/** Person, full view: every stored field but credentials, with organisation, roles, managed organisations and the password state. */
export const PersonFull = Person.extend({
  birthdate: z.string().nullable().describe('calendar date YYYY-MM-DD'),
  extern_person_id: z.string().nullable(),
  address: z.string().nullable(),
  postcode: z.string().nullable(),
  city: z.string().nullable(),
  phone: z.string().nullable(),
  sex: z.string().nullable(),
  notice: z.string().nullable(),
  profile_image: z.string().nullable(),
  source: z.string().nullable(),
  code: z.string().nullable(),
  language: z
    .string()
    .nullable()
    .describe("BCP 47 language tag (nb, sv, en-GB) in canonical form; notices are written in it where texts exist, else the tenant's language"),
  superuser: z.boolean().describe('may do everything in the tenant'),
  superadmin: z.boolean().describe("the spec's superadmin: reads every role, filters competences by organisation, lists everyone's sign-ons"),
  organisation: OrganisationRef.nullable().describe('the member organisation'),
  roles: z
    .array(z.object({ role_id: z.number().int(), name: z.string(), meta_type: z.string().describe('role, specialrole or position') }))
    .describe('roles held'),
  manages: z.array(OrganisationRef).describe('organisations the person is directly assigned to manage; the subtrees below count too'),
  password_changed_at: isoDateTime().nullable().describe('ISO 8601 date-time; when the person last set their own password'),
  must_change_password: z
    .enum(['expired', 'changed_by_other', 'sent_by_mail'])
    .nullable()
    .describe('why the person must choose a new password before anything else (418); null when not'),
  deactivated: z.boolean().describe('the person is deactivated: cannot log in, left out of lists unless state=deactivated or all'),
  deactivated_at: isoDateTime().nullable().describe('ISO 8601 date-time of the deactivation; null while active'),
  created_at: isoDateTime(),
  updated_at: isoDateTime(),
})
  .describe(
    'Person, full view (single objects by default, view=full): the simple view plus every other stored field, organisation, roles, manages, ' +
      'the password state and deactivated / deactivated_at. Password hashes are never shown.',
  )
  .meta({ id: 'PersonFull' });

/** One Person in the view asked for: full (single objects by default) or simple (lists by default). */
export const PersonView = z.union([PersonFull, Person]);

/** List view: who the person is and how to reach them. */
export function presentPersonSimple(
  p: Pick<PersonRow, 'id' | 'user_name' | 'firstname' | 'lastname' | 'jobtitle' | 'email' | 'mobile' | 'organisation_id' | 'employee_code'>,
) {
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
