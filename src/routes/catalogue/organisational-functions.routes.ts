import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, fieldsShape } from '../../platform/http/param-types';
import { OrganisationalFunctionsFlow } from '../../flows/catalogue/organisational-functions';
import { roleMetaTypes } from './roles.routes';
import { OrganisationalFunctionView } from './roles.views';
import { policies } from '../../people';

const ids = p.idList().pipe(z.array(z.number()).min(1, 'must name at least one organisational function'));

export const organisationalFunctionRoutes = [
  defineRoute({
    method: 'get',
    path: '/organisationalfunctions',
    access: policies.when(
      'without organisation_id',
      (i) => i.organisation_id === undefined,
      policies.selfOrManager('user_name', 'see the organisational functions of {person}'),
    ),
    resource: 'organisationalfunctions',
    summary: 'Functions available in an organisation, or (without organisation_id) the functions a person holds',
    description:
      'An organisational function is a role made available on an organisation; it is available there and in every organisation below. ' +
      'With organisation_id: the functions available there (`inherited` when defined above), for superusers, its managers and members of it or below. ' +
      'Without: the functions the person (user_name, default the caller; self, their manager, superuser) holds in their own organisation (`held: true`).',
    output: OrganisationalFunctionView,
    input: z.object({ organisation_id: p.id().optional(), user_name: p.string(200).optional(), role_meta_types: roleMetaTypes.optional(), ...fieldsShape }),
    async handler(ctx, input) {
      const svc = ctx.resolve(OrganisationalFunctionsFlow);
      const items =
        input.organisation_id !== undefined
          ? await svc.ofOrganisation(ctx.user, input.organisation_id, input.role_meta_types)
          : await svc.ofPerson(ctx.target!, input.role_meta_types);
      return { items };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/organisationalfunctions/:organisationalfunction_id',
    access: policies.when(
      'unless the caller gives up their own function (action=off)',
      (i, user) => !(i.action === 'off' && (i.user_name ?? user.userName) === user.userName),
      policies.actingManager('user_name', (i) => (i.action === 'off' ? "remove {person}'s organisational function" : 'assign an organisational function')),
    ),
    resource: 'organisationalfunctions',
    summary: 'update: the person takes on the function; off: the person gives it up',
    description:
      "user_name defaults to the caller. update gives the person the role (the person's manager or a superuser only; self-assignment is 403, managers too); " +
      "off takes it away (also allowed for self). Neither for a person who manages the caller (403). The function must be available in the person's organisation, else 404. Returns the function with `held`.",
    output: OrganisationalFunctionView,
    input: z.object({
      organisationalfunction_id: p.id(),
      // z.string() first, so that a missing action is a 419 rather than a 420.
      action: z.string().pipe(z.enum(['off', 'update'], { message: 'must be off or update' })),
      user_name: p.string(200).optional(),
      ...fieldsShape,
    }),
    async handler(ctx, input) {
      const f = await ctx.resolve(OrganisationalFunctionsFlow).setForPerson(ctx.user, ctx.target, input.organisationalfunction_id, input.action);
      return { items: [f], message: input.action === 'off' ? 'organisational function removed' : 'organisational function assigned' };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/organisations/:organisation_id/organisationalfunctions',
    access: policies.organisationManager('organisation_id', 'change the organisational functions of this organisation'),
    resource: 'organisationalfunctions',
    summary: 'Makes roles available as organisational functions on the organisation (and below)',
    description: "Security: superuser or the organisation's manager. Returns the organisation's functions after the change; unknown role ids are a 404.",
    output: OrganisationalFunctionView,
    input: z.object({ organisation_id: p.id(), organisationalfunction_ids: ids, ...fieldsShape }),
    async handler(ctx, input) {
      return { items: await ctx.resolve(OrganisationalFunctionsFlow).change(input.organisation_id, input.organisationalfunction_ids, true) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/organisations/:organisation_id/organisationalfunctions',
    access: policies.organisationManager('organisation_id', 'change the organisational functions of this organisation'),
    resource: 'organisationalfunctions',
    summary: 'Removes organisational functions from the organisation (persons keep their roles)',
    description: "Security: superuser or the organisation's manager. Returns the organisation's functions after the change. Persons who hold the role keep it.",
    output: OrganisationalFunctionView,
    input: z.object({ organisation_id: p.id(), organisationalfunction_ids: ids, ...fieldsShape }),
    async handler(ctx, input) {
      return { items: await ctx.resolve(OrganisationalFunctionsFlow).change(input.organisation_id, input.organisationalfunction_ids, false) };
    },
  }),
];
