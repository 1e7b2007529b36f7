import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject, p, pagingShape, paging, viewShape } from '../../platform/http/param-types';
import { OrganisationData, OrganisationsService, OrganisationView, policies } from '../../people';

const idParam = { organisation_id: p.id() };

export const organisationRoutes = [
  defineRoute({
    method: 'get',
    path: '/organisations',
    access: policies.manager('list organisations'),
    resource: 'organisations',
    summary: 'Organisations. Security: superuser (all), manager (the subtrees they manage)',
    description:
      'parent_id=0: roots (for a manager: the tops of their subtrees); parent_id=N: N\'s children the caller may see (unknown N: 404); ' +
      'user_name: the organisation the person belongs to (one at most). Others than superusers and managers: 403. Order name, id; simple view by default.',
    input: z.object({
      parent_id: p.int().pipe(z.number().min(0, 'must be 0 (roots) or an organisation id')).optional(),
      user_name: p.string(200).min(1).optional(),
      ...pagingShape,
      ...viewShape,
    }),
    output: OrganisationView,
    async handler(ctx, input) {
      return { items: await ctx.resolve(OrganisationsService).list(ctx.user, input, paging(input), input.view ?? 'simple') };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/organisations/:organisation_id',
    access: policies.organisationManager('organisation_id', 'see this organisation'),
    resource: 'organisations',
    summary: 'One organisation. Security: superuser, manager of it',
    description: 'Full view by default (adds parent and children).',
    input: z.object({ ...idParam, ...viewShape }),
    output: OrganisationView,
    async handler(ctx, input) {
      return { items: [await ctx.resolve(OrganisationsService).get(input.organisation_id, input.view ?? 'full')] };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/organisations',
    access: policies.userThen('a superuser anywhere, a manager only below an organisation they manage (decided on parent_id)'),
    resource: 'organisations',
    summary: 'Create an organisation. Security: superuser; a manager only below an organisation they manage',
    description:
      'Security is not shown in the spec, decided: a superuser anywhere; a manager only below an organisation they manage, ' +
      'so a root (parent_id 0 or absent) only by a superuser. organisation_data: name (required), parent_id (0 or absent: a root), email, address, phone, ' +
      'extern_organisation_id (stored as text); unknown keys are a 420. Answers the new Organisation (full view by default).',
    input: z.object({ organisation_data: z.preprocess(jsonObject, OrganisationData), ...viewShape }),
    output: OrganisationView,
    async handler(ctx, input) {
      const svc = ctx.resolve(OrganisationsService);
      const row = await svc.create(ctx.user, input.organisation_data);
      return { message: 'organisation created', items: [await svc.present(row, input.view ?? 'full')] };
    },
  }),
];
