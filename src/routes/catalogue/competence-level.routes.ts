import { z } from 'zod';
import { COSTS, defineRoute } from '../../platform/http/define-route';
import { p, fieldsShape } from '../../platform/http/param-types';
import { personStateParam, policies, type TargetPerson } from '../../people';
import { CompetenceLevelFlow } from '../../flows/catalogue/competence-level';

/** Percent of required competences held, rounded down; nothing required counts as 100. */
const level = (required: number, fulfilled: number) => (required === 0 ? 100 : Math.floor((100 * fulfilled) / required));

const counts = {
  required: z.number().int().describe('mandatory competences (per person, summed over the persons of an organisation)'),
  fulfilled: z.number().int().describe('of those, held now'),
  missing: z.number().int(),
  competence_level: z.number().int().min(0).max(100).describe('percent fulfilled, rounded down; 100 when nothing is required'),
};

export const competenceLevelRoutes = [
  defineRoute({
    method: 'get',
    path: '/competencelevel',
    cost: { base: 1, heavier: COSTS.report, when: { param: 'organisation_id' } },
    access: policies.either(
      'with organisation_id',
      (i) => i.organisation_id !== undefined,
      policies.organisationManager('organisation_id', 'see the competence level of this organisation'),
      policies.selfOrManager('user_name', 'see the competence level of {person}'),
    ),
    resource: 'competencelevel',
    summary: 'Share of mandatory competences fulfilled, for a person or an organisation subtree',
    description:
      'For a person: required = distinct active competences mandatory for any of their roles, fulfilled = how many of them are held now; ' +
      'competence_level = floor(100 * fulfilled / required), 100 when nothing is required. For organisation_id (superuser or its manager): ' +
      'the persons of the organisation and every unit below, summing required and fulfilled over them (each person-competence pair weighs the same); ' +
      'state: active (default) leaves deactivated persons out, deactivated counts only them, all both. A person named by user_name is counted whatever their state.',
    output: z.union([
      z.object({ user_name: z.string(), ...counts }).meta({ id: 'PersonCompetenceLevel' }),
      z
        .object({
          organisation_id: z.number().int(),
          persons: z.number().int().describe('persons in the organisation and below (as state selects them)'),
          ...counts,
        })
        .meta({ id: 'OrganisationCompetenceLevel' }),
    ]),
    input: z.object({ organisation_id: p.id().optional(), user_name: p.string(200).optional(), state: personStateParam, ...fieldsShape }),
    async handler(ctx, input) {
      const levels = ctx.resolve(CompetenceLevelFlow);
      if (input.organisation_id !== undefined) {
        const c = await levels.ofOrganisation(input.organisation_id, input.state);
        return {
          items: [
            {
              organisation_id: input.organisation_id,
              persons: c.persons,
              required: c.required,
              fulfilled: c.fulfilled,
              missing: c.required - c.fulfilled,
              competence_level: level(c.required, c.fulfilled),
            },
          ],
        };
      }
      const person = ctx.target as TargetPerson;
      const c = await levels.ofPerson(person.id);
      return {
        items: [
          {
            user_name: person.user_name,
            required: c.required,
            fulfilled: c.fulfilled,
            missing: c.required - c.fulfilled,
            competence_level: level(c.required, c.fulfilled),
          },
        ],
      };
    },
  }),
];
