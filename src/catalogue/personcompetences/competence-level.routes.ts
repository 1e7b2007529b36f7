import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, fieldsShape } from '../../platform/http/param-types';
import { PersonCompetenceList } from './personcompetence-list';
import { CompetenceStates } from './competence-state';
import { PersonCompetencesRepository } from './personcompetences.repository';
import type { RouteContext } from '../../platform/http/define-route';
import { PersonDirectory, policies, type TargetPerson } from '../../people';

/** Mandatory competences (of the person's roles) and how many of them the person holds now. */
async function personCounts(ctx: RouteContext<unknown>, personId: number) {
  const roleIds = await ctx.resolve(PersonCompetencesRepository).roleIdsOf(personId);
  const required = (await ctx.resolve(PersonCompetenceList).required(roleIds)).filter((r) => r.mandatory);
  const states = await ctx.resolve(CompetenceStates).evaluate(personId, required.map((r) => r.competenceId));
  return { required: required.length, fulfilled: states.filter((s) => s.held).length };
}

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
      'the persons of the organisation and every unit below, summing required and fulfilled over them (each person-competence pair weighs the same).',
    output: z.union([
      z.object({ user_name: z.string(), ...counts }),
      z.object({ organisation_id: z.number().int(), persons: z.number().int().describe('persons in the organisation and below'), ...counts }),
    ]),
    input: z.object({ organisation_id: p.id().optional(), user_name: p.string(200).optional(), ...fieldsShape }),
    async handler(ctx, input) {
      if (input.organisation_id !== undefined) {
        const members = await ctx.resolve(PersonDirectory).idsInSubtree(input.organisation_id);
        let required = 0;
        let fulfilled = 0;
        for (const id of members) {
          const c = await personCounts(ctx, id);
          required += c.required;
          fulfilled += c.fulfilled;
        }
        return {
          items: [{ organisation_id: input.organisation_id, persons: members.length, required, fulfilled, missing: required - fulfilled, competence_level: level(required, fulfilled) }],
        };
      }
      const person = ctx.target as TargetPerson;
      const c = await personCounts(ctx, person.id);
      return { items: [{ user_name: person.user_name, ...c, missing: c.required - c.fulfilled, competence_level: level(c.required, c.fulfilled) }] };
    },
  }),
];
