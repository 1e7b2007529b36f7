import { z } from 'zod';
import { COMPETENCE_TYPE_IDS } from '../../catalogue';

const metaType = z.enum(['role', 'specialrole', 'position']);

/** A Role; `mandatory` only when listed for a competence_id, `requirements` only for one by id. */
export const RoleView = z
  .object({
    role_id: z.number().int(),
    name: z.string(),
    meta_type: metaType,
    description: z.string().nullable(),
    mandatory: z.boolean().optional().describe('only with competence_id: true when the competence is mandatory for the role, false when optional'),
    requirements: z
      .array(
        z.object({
          competence_id: z.number().int(),
          title: z.string(),
          type: z.enum(COMPETENCE_TYPE_IDS),
          mandatory: z.boolean(),
        }),
      )
      .optional()
      .describe('GET /roles/{role_id} only: the competences the role requires'),
  })
  .meta({ id: 'Role' });

/** A Position: a role of meta type position, with position_id = role_id. */
export const PositionView = RoleView.omit({ mandatory: true, requirements: true })
  .extend({
    position_id: z.number().int().describe('the role id'),
    meta_type: z.literal('position'),
  })
  .meta({ id: 'Position' });

/** An OrganisationalFunction: a role made available on an organisation; its id is the role id. */
export const OrganisationalFunctionView = z
  .object({
    organisationalfunction_id: z.number().int().describe('the role id'),
    role_id: z.number().int(),
    name: z.string(),
    meta_type: metaType,
    organisation_id: z.number().int().describe('the organisation the function is available in (for a person: their own organisation)'),
    inherited: z.boolean().describe('true when made available on an organisation above organisation_id'),
    held: z.boolean().optional().describe("only for a person's functions (no organisation_id) and after PUT: whether the person holds it now"),
  })
  .meta({ id: 'OrganisationalFunction' });
