import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, paging } from '../../platform/http/param-types';
import { PersonView, policies } from '../../people';
import { ListPersonsFlow } from '../../flows/persons/list-persons';
import { personListShape } from './persons.routes';

/** The persons of an organisation: a persons list, listed with the organisation routes. */
export const organisationMemberRoutes = [
  defineRoute({
    method: 'get',
    path: '/organisations/:organisation_id/persons',
    access: policies.manager('list persons'),
    resource: 'persons',
    summary: 'Members of an organisation, as GET /api/persons with organisation_id. Security: superuser, manager of it',
    description:
      'Direct members; recursive=1 adds the members of every sub-organisation. Filters (role_ids, event_id, has_competence_ids), paging and order ' +
      '(lastname, firstname, id) as GET /api/persons; simple view by default. state: active (default), deactivated or all, as GET /api/persons.',
    input: z.object({ organisation_id: p.id(), ...personListShape }),
    output: PersonView,
    async handler(ctx, input) {
      const query = { ...input, organisation_id: input.organisation_id };
      return { items: await ctx.resolve(ListPersonsFlow).list(ctx.user, query, paging(input), input.view ?? 'simple') };
    },
  }),
];
