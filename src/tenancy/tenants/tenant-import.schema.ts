import { z } from 'zod';
import { INT4 } from '../../platform/http/param-types';
import { canonicalLanguageTag } from '../../platform/time/language-tag';

/** The tenant-import/1 document (seeds/*.json). New optional keys may appear; meanings never change. */
const ref = z.string().min(1).max(200);
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD');
const isoDateTime = z.string().refine((v) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}T/.test(v), 'must be an ISO date-time');

export const TenantSlug = z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'must be 1-40 lowercase letters, digits or -, starting with a letter');
export const HostName = z.string().regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i, 'must be a host name without port');

export interface OrganisationNode {
  ref: string;
  name: string;
  email?: string;
  address?: string;
  phone?: string;
  extern_organisation_id?: string | number;
  children?: OrganisationNode[];
}
const Organisation: z.ZodType<OrganisationNode> = z
  .lazy(() =>
    z.object({
      ref,
      name: z.string().min(1),
      email: z.string().optional(),
      address: z.string().optional(),
      phone: z.string().optional(),
      extern_organisation_id: z.union([z.string(), z.number()]).optional(),
      children: z.array(Organisation).optional(),
    }),
  )
  .meta({ id: 'TenantImportOrganisation' });

export interface NamedNode {
  ref: string;
  name: string;
  description?: string;
  external_id?: string | number;
  children?: NamedNode[];
}
const Named: z.ZodType<NamedNode> = z
  .lazy(() =>
    z.object({
      ref,
      name: z.string().min(1),
      description: z.string().optional(),
      external_id: z.union([z.string(), z.number()]).optional(),
      children: z.array(Named).optional(),
    }),
  )
  .meta({ id: 'TenantImportNamedNode' });

export const COMPETENCE_TYPES = [
  'course',
  'group',
  'module',
  'ecourse',
  'checklist',
  'checklist_item',
  'signature',
  'formal',
  'skill',
  'survey',
  'question',
] as const;
export type CompetenceType = (typeof COMPETENCE_TYPES)[number];

export interface CompetenceNode {
  ref: string;
  title: string;
  description?: string;
  type: CompetenceType;
  group?: string;
  categories?: string[];
  attributes?: string[];
  custom_attributes?: Record<string, string | number | boolean>;
  valid_months?: number;
  pass_mark?: number;
  owner?: string;
  instructor?: string;
  checked_by?: 'self' | 'manager' | 'both';
  lms_start_url?: string;
  active?: boolean;
  children?: CompetenceNode[];
}
const Competence: z.ZodType<CompetenceNode> = z
  .lazy(() =>
    z.object({
      ref,
      title: z.string().min(1),
      description: z.string().optional(),
      type: z.enum(COMPETENCE_TYPES),
      group: ref.optional(),
      categories: z.array(ref).optional(),
      attributes: z.array(ref).optional(),
      custom_attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      valid_months: z.number().int().min(1).max(1200).optional(),
      pass_mark: z.number().int().min(0).max(100).optional(),
      owner: ref.optional(),
      instructor: ref.optional(),
      checked_by: z.enum(['self', 'manager', 'both']).optional(),
      lms_start_url: z.string().url().optional(),
      active: z.boolean().optional(),
      children: z.array(Competence).optional(),
    }),
  )
  .meta({ id: 'TenantImportCompetence' });

export interface EventNode {
  ref: string;
  competence: string;
  title: string;
  description?: string;
  location?: string;
  host_organisation?: string;
  start: string;
  end: string;
  signon_opens?: string;
  signon_closes?: string;
  max_participants?: number;
  min_age?: number;
  prerequisites?: string[];
  cancelled?: boolean;
  /** Why it was cancelled (PUT /api/events/[id]/cancel's reason); only with cancelled. */
  cancel_reason?: string;
  locked?: boolean;
  instructor?: string;
  custom_attributes?: Record<string, string | number | boolean>;
  children?: EventNode[];
}
const Event: z.ZodType<EventNode> = z
  .lazy(() =>
    z.object({
      ref,
      competence: ref,
      title: z.string().min(1),
      description: z.string().optional(),
      location: ref.optional(),
      host_organisation: ref.optional(),
      start: isoDateTime,
      end: isoDateTime,
      signon_opens: isoDateTime.optional(),
      signon_closes: isoDateTime.optional(),
      max_participants: z.number().int().min(0).max(INT4.max).optional(),
      min_age: z.number().int().min(0).max(150).optional(),
      prerequisites: z.array(ref).optional(),
      cancelled: z.boolean().optional(),
      cancel_reason: z.string().max(2000).optional(),
      locked: z.boolean().optional(),
      instructor: ref.optional(),
      custom_attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      children: z.array(Event).optional(),
    }),
  )
  .meta({ id: 'TenantImportEvent' });

const PERSON_TEXT_FIELDS = [
  'firstname',
  'lastname',
  'jobtitle',
  'mobile',
  'email',
  'extern_person_id',
  'address',
  'postcode',
  'city',
  'phone',
  'sex',
  'notice',
  'employee_code',
  'profile_image',
  'source',
  'code',
] as const;
export { PERSON_TEXT_FIELDS };

const Person = z
  .object({
    user_name: z.string().min(1).max(200),
    password: z.string().min(1).optional(),
    /** An already hashed password (argon2/bcrypt), e.g. from an export; wins over password. */
    password_hash: z.string().startsWith('$').optional(),
    birthdate: isoDate.optional(),
    organisation: ref.optional(),
    roles: z.array(ref).optional(),
    superuser: z.boolean().optional(),
    superadmin: z.boolean().optional(),
    manages: z.array(ref).optional(),
    password_changed_at: isoDateTime.optional(),
    must_change_password: z.enum(['expired', 'changed_by_other', 'sent_by_mail']).optional(),
    /** A deactivated person (issue 36): no login, left out of lists; deactivated_at when it happened (default: the import's moment). */
    deactivated: z.boolean().optional(),
    deactivated_at: isoDateTime.optional(),
    /** BCP 47 language tag (issue 39), stored in canonical form (EN-gb: en-GB). */
    language: z
      .string()
      .refine((v) => canonicalLanguageTag(v) !== null, 'must be a BCP 47 language tag such as nb, sv or en-GB')
      .transform((v) => canonicalLanguageTag(v)!)
      .optional(),
  })
  .extend(
    Object.fromEntries(PERSON_TEXT_FIELDS.map((f) => [f, z.string().optional()])) as Record<(typeof PERSON_TEXT_FIELDS)[number], z.ZodOptional<z.ZodString>>,
  );
export type ImportPerson = z.infer<typeof Person>;

export const TenantImport = z.object({
  format: z.literal('tenant-import/1'),
  tenant: z.object({ slug: TenantSlug, name: z.string().min(1).max(200), hosts: z.array(HostName).min(1) }),
  config: z.record(z.string(), z.unknown()).default({}),
  organisations: z.array(Organisation).default([]),
  roles: z
    .array(
      z.object({
        ref,
        name: z.string().min(1),
        description: z.string().optional(),
        meta_type: z.enum(['role', 'specialrole', 'position']).default('role'),
        /** Persons (user names) who administer the role: "admin for the role" of the spec. */
        admins: z.array(ref).optional(),
      }),
    )
    .default([]),
  competence_groups: z.array(Named).default([]),
  categories: z.array(Named).default([]),
  attributes: z.array(z.object({ ref, name: z.string().min(1) })).default([]),
  competences: z.array(Competence).default([]),
  requirements: z.array(z.object({ role: ref, competence: ref, mandatory: z.boolean().default(true) })).default([]),
  locations: z
    .array(
      z.object({
        ref,
        name: z.string().min(1),
        address: z.string().optional(),
        capacity: z.number().int().min(0).max(INT4.max).optional(),
        latitude: z.number().min(-90).max(90).optional(),
        longitude: z.number().min(-180).max(180).optional(),
      }),
    )
    .default([]),
  persons: z.array(Person).default([]),
  events: z.array(Event).default([]),
  person_events: z
    .array(
      z.object({
        person: ref,
        event: ref,
        passed: z.boolean().optional(),
        status: z.enum(['signed_on', 'waitlist', 'signed_off']).optional(),
        /** Results of the sign-on at its event and module events (issue 36). */
        results: z
          .array(
            z.object({
              event: ref,
              met: z.boolean().optional(),
              passed: z.number().int().min(0).max(100).optional(),
              reached: z.boolean().optional(),
              grade: z.number().optional(),
              comments: z.string().optional(),
            }),
          )
          .optional(),
      }),
    )
    .default([]),
  person_competences: z
    .array(
      z.object({
        person: ref,
        competence: ref,
        date: isoDate.optional(),
        valid_until: isoDate.optional(),
        passed: z.number().int().min(0).max(100).optional(),
        grade: z.number().optional(),
        school: z.string().optional(),
        graduation_year: z
          .string()
          .regex(/^\d{4}$/, 'must be a four-digit year')
          .optional(),
        comments: z.string().optional(),
        skill_level: z.number().int().min(INT4.min).max(INT4.max).optional(),
        checked: z.boolean().optional(),
        signed: z.boolean().optional(),
      }),
    )
    .default([]),
});
export type TenantImport = z.infer<typeof TenantImport>;
