import { z } from 'zod';
import type { ViewName } from '../../platform/http/param-types';
import type { CompetenceState } from './competence-state';
import { COMPETENCE_TYPE_IDS } from '../competences/competence-types';

const calendarDate = (what: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .nullable()
    .describe(`${what} (YYYY-MM-DD); null when not registered`);

const shape = {
  personcompetence_id: z.number().int().nullable().describe('id of the current registration; null when there is none'),
  competence_id: z.number().int(),
  title: z.string(),
  type: z.enum(COMPETENCE_TYPE_IDS),
  user_name: z.string(),
  state: z.enum(['passed', 'missing', 'deleted']).describe('passed: held now; missing: not held (see reason); deleted: answer of DELETE'),
  reason: z
    .enum(['not_registered', 'expired', 'not_passed', 'not_checked', 'not_signed', 'items_missing'])
    .nullable()
    .describe('why the competence is not held; null when held'),
  passed: z.number().int().nullable().describe('0-100; null when not registered'),
  date: calendarDate('date of the registration'),
  valid_until: calendarDate('last day the registration is valid; null also when it does not expire'),
  mandatory: z.boolean().optional().describe('lists filtered by a requirement only: mandatory for at least one of the roles'),
  role_ids: z.array(z.number().int()).optional().describe('lists filtered by a requirement only: the roles that require it'),
  checked: z.boolean().optional().describe('checklist items: checked, or passed by a manager override'),
  checked_by: z.string().nullable().optional().describe('checklist items: who checks it (self, manager or both)'),
  signed: z.boolean().optional().describe('signatures'),
  skill_level: z.number().int().nullable().optional().describe('skills: 0-100'),
  school: z.string().nullable().optional().describe('formal competences'),
  graduation_year: z.string().nullable().optional().describe('formal competences: four-digit year'),
  grade: z.number().nullable().optional().describe('course, group, module and e-course'),
  show_course_diploma: z.boolean().optional().describe('course, group, module and e-course: the person may download the diploma'),
  comments: z.string().nullable().optional().describe('full view'),
  override: z.boolean().optional().describe('full view: passed by a manager override (checklist items)'),
  registered_by: z.string().nullable().optional().describe('full view: user name of whoever registered it'),
  registered_at: z.string().nullable().optional().describe('ISO 8601 date-time; full view'),
  deleted: z.literal(true).optional().describe('answer of DELETE only'),
};

/** A checklist item nested in its checklist (simple view). */
const ChecklistItemView = z.object({ ...shape });

/** A PersonCompetence: simple and full view; type-specific fields only on competences of that type. */
export const PersonCompetenceView = z
  .object({
    ...shape,
    children: z.array(ChecklistItemView).optional().describe('checklists: their items, each with its own state'),
  })
  .meta({ id: 'PersonCompetence' });

const COURSE_TYPES = ['course', 'group', 'module', 'ecourse'];

const NO_NAMES: ReadonlyMap<number, string> = new Map();

/**
 * A PersonCompetence: the competence as held (or missed) by one person. `registrars`: the user
 * names of whoever registered (`registrarIdsOf`), for the full view.
 */
export function presentPersonCompetence(
  s: CompetenceState,
  userName: string,
  view: ViewName,
  extra: Record<string, unknown> = {},
  registrars: ReadonlyMap<number, string> = NO_NAMES,
) {
  const c = s.competence;
  const r = s.registration;
  const out: Record<string, unknown> = {
    personcompetence_id: r?.id ?? null,
    competence_id: c.id,
    title: c.title,
    type: c.type,
    user_name: userName,
    state: s.held ? 'passed' : 'missing',
    reason: s.reason,
    passed: r?.passed ?? null,
    date: r?.date ?? null,
    valid_until: r?.valid_until ?? null,
    ...extra,
  };
  if (c.type === 'checklist_item') Object.assign(out, { checked: r ? r.checked === true || r.override : false, checked_by: c.checked_by });
  if (c.type === 'signature') out.signed = r?.signed === true;
  if (c.type === 'skill') out.skill_level = r?.skill_level ?? null;
  if (c.type === 'formal') Object.assign(out, { school: r?.school ?? null, graduation_year: r?.graduation_year ?? null });
  if (COURSE_TYPES.includes(c.type)) Object.assign(out, { grade: r?.grade ?? null, show_course_diploma: r?.show_course_diploma === true });
  if (c.type === 'checklist') out.children = s.children.map((k) => presentPersonCompetence(k, userName, 'simple'));
  if (view === 'full') {
    Object.assign(out, {
      comments: r?.comments ?? null,
      override: r?.override ?? false,
      registered_by: r?.registered_by == null ? null : (registrars.get(r.registered_by) ?? null),
      registered_at: r?.created_at ?? null,
    });
  }
  return out;
}

/** Who registered what the full view shows: the states' own registrations (checklist items come in the simple view). */
export function registrarIdsOf(states: readonly CompetenceState[]): number[] {
  return states.flatMap((s) => (s.registration?.registered_by == null ? [] : [s.registration.registered_by]));
}
