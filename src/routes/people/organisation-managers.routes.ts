import { z } from 'zod';
import { defineRoute, type RouteContext } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { OrganisationAuthoring, OrganisationManagersRepository, PersonView, policies, presentPersonSimple } from '../../people';

/** The persons assigned to manage the organisation itself, as Person simple views. */
const managersOf = async (ctx: RouteContext<unknown>, id: number) =>
  (await ctx.resolve(OrganisationManagersRepository).managersOf(id)).map(presentPersonSimple);

const RIGHTS =
  "A manager acts on the persons of the organisation and of every organisation below it; the change counts from the manager's next request " +
  '(nothing of it is cached past a write: the organisation_managers trigger drops every cached read of the tenant, and rights are read per request). ';
const ADMIN =
  'Security: a superuser for any organisation; a manager only for an organisation strictly below one they are assigned to manage (they manage its parent), never the ' +
  'organisation they manage itself (403). ';

const input = z.object({ organisation_id: p.id(), user_name: p.string(200).min(1) });

/** Who manages an organisation (organisation_managers), listed with the organisation routes. */
export const organisationManagerRoutes = [
  defineRoute({
    method: 'get',
    path: '/organisations/:organisation_id/managers',
    access: policies.organisationManager('organisation_id', 'see the managers of this organisation'),
    resource: 'managers',
    summary: 'The managers assigned to an organisation itself (not those of organisations above it), as Person simple views',
    description: 'Ordered by last name, first name, id. Security: superuser, a manager of the organisation or of one above it.',
    input: z.object({ organisation_id: p.id() }),
    output: PersonView,
    async handler(ctx, input) {
      return { items: await managersOf(ctx, input.organisation_id) };
    },
  }),
  defineRoute({
    method: 'put',
    idempotencyKey: true,
    path: '/organisations/:organisation_id/managers',
    access: policies.organisationBelowManaged('organisation_id', 'appoint managers of this organisation'),
    resource: 'managers',
    summary: 'Make a person (user_name) a manager of the organisation',
    description:
      RIGHTS +
      ADMIN +
      'A manager appoints only a person they may act on as manager (in what they manage; not themself, not someone who manages them: 403). ' +
      "Unknown user_name: 404. Already a manager: 200, nothing changed. Answers the organisation's managers. Audit entry manager.added (subject: the new manager; organisation_id).",
    input,
    output: PersonView,
    async handler(ctx, input) {
      const message = await ctx.resolve(OrganisationAuthoring).addManager(ctx.user, ctx.target.id, input.user_name);
      return { message, items: await managersOf(ctx, ctx.target.id) };
    },
  }),
  defineRoute({
    method: 'delete',
    idempotencyKey: true,
    path: '/organisations/:organisation_id/managers',
    access: policies.organisationBelowManaged('organisation_id', 'remove managers of this organisation'),
    resource: 'managers',
    summary: "End a person's (user_name) assignment as manager of the organisation",
    description:
      RIGHTS +
      ADMIN +
      'A manager may not remove someone who manages them (403). What the person manages elsewhere (above) stays. Unknown user_name: 404; not a manager of it: 200, nothing changed. ' +
      "Answers the organisation's managers. Audit entry manager.removed (subject: the former manager; organisation_id).",
    input,
    output: PersonView,
    async handler(ctx, input) {
      const message = await ctx.resolve(OrganisationAuthoring).removeManager(ctx.user, ctx.target.id, input.user_name);
      return { message, items: await managersOf(ctx, ctx.target.id) };
    },
  }),
];
