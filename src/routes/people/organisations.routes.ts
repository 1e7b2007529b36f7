import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject, p, pagingShape, paging, viewShape } from '../../platform/http/param-types';
import { OrganisationsService, OrganisationView, policies } from '../../people';

const optionalText = (max: number) =>
  z
    .preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().trim().max(max, `must be at most ${max} characters`))
    .transform((v) => (v === '' ? null : v))
    .optional();

const OrganisationData = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    parent_id: p.int().pipe(z.number().min(0, 'must be 0 (root) or an organisation id')).optional(),
    email: z
      .string()
      .trim()
      .refine((v) => v === '' || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v), 'must be an e-mail address like name@example.com')
      .transform((v) => (v === '' ? null : v.toLowerCase()))
      .optional(),
    address: optionalText(500),
    phone: optionalText(50),
    extern_organisation_id: optionalText(200),
  })
  .strict();

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
