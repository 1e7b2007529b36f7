import { z } from 'zod';
import { jsonObject, p } from '../../platform/http/param-types';
import { COMPETENCE_TYPE_IDS } from '../../catalogue';

/** An empty value (or JSON null) clears the field: stored as null. */
export const clearable = <T extends z.ZodType>(s: T) => z.preprocess((v) => (v === '' || v === null ? null : v), s.nullable());

/** A name or title: given and not blank. On create a missing or empty one is a 419, on change an empty one a 420. */
export const nameText = (max: number, required: boolean) =>
  required
    ? p.text().pipe(z.string().trim().min(1, 'must not be blank').max(max, `must be at most ${max} characters`))
    : z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const optionalText = (max: number) => clearable(z.string().trim().max(max, `must be at most ${max} characters`)).optional();

/** A list of ids that replaces a set; an empty value (or []) empties it. */
const idSet = () => z.preprocess((v) => (v === '' || v === null ? [] : v), p.idList()).optional();

const competenceType = z.enum(COMPETENCE_TYPE_IDS, { message: `must be one of ${COMPETENCE_TYPE_IDS.join(', ')}` });

/** competence_data of POST (title and type required) and PUT (only the fields given change). */
export function competenceData(required: boolean) {
  return z
    .object({
      title: required ? nameText(500, true) : nameText(500, false).optional(),
      type: (required ? p.text().pipe(competenceType) : competenceType.optional()).describe(`one of ${COMPETENCE_TYPE_IDS.join(', ')}`),
      description: optionalText(20000),
      parent_id: clearable(p.id()).optional().describe('the parent competence (a course, group, checklist, survey or question); empty: at the top'),
      competence_group_id: clearable(p.id()).optional(),
      category_ids: idSet(),
      attribute_ids: idSet(),
      valid_months: clearable(p.int().pipe(z.number().min(1, 'must be 1..1200 months').max(1200, 'must be 1..1200 months'))).optional(),
      pass_mark: clearable(p.int().pipe(z.number().min(0, 'must be 0..100').max(100, 'must be 0..100')))
        .optional()
        .describe('0..100: a result (PUT /api/participants) at or above it passes and registers the competence; empty: 100'),
      checked_by: z.enum(['self', 'manager', 'both'], { message: 'must be self, manager or both' }).optional().describe('checklist items only; default self'),
      lms_start_url: clearable(z.string().trim().max(2000, 'must be at most 2000 characters'))
        .optional()
        .describe('e-courses only; an absolute http or https URL'),
      owner_user_name: clearable(p.string(200)).optional(),
      instructor_user_name: clearable(p.string(200)).optional(),
      custom_attributes: z
        .preprocess(jsonObject, z.record(z.string(), z.unknown(), { message: 'must be an object: custom_attributes[name]=value' }))
        .optional()
        .describe("names defined for competences in the tenant's custom_attributes config item; an empty value removes one"),
      active: p.bool().optional(),
    })
    .strict();
}

/** competence_group_data / category_data: a node of a tree. */
export function treeNodeData(kind: 'competencegroup' | 'category', required: boolean) {
  const base = {
    name: required ? nameText(200, true) : nameText(200, false).optional(),
    parent_id: clearable(p.id()).optional().describe('the node above; empty or absent on create: a root'),
  };
  return kind === 'category' ? z.object({ ...base, description: optionalText(5000) }).strict() : z.object({ ...base, external_id: optionalText(200) }).strict();
}

export const ROLE_META_TYPE_VALUES = ['role', 'specialrole', 'position'] as const;

/** role_data. */
export function roleData(required: boolean) {
  return z
    .object({
      name: required ? nameText(200, true) : nameText(200, false).optional(),
      meta_type: z.enum(ROLE_META_TYPE_VALUES, { message: 'must be role, specialrole or position' }).optional().describe('default role'),
      description: optionalText(5000),
    })
    .strict();
}
