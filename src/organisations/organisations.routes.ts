import { z } from 'zod';
import { defineRoute } from '../platform/http/define-route';
import { p, pagingShape, paging, viewShape } from '../platform/http/param-types';
import { jsonObject } from '../persons/person-data.schema';
import { PersonsService } from '../persons/persons.service';
import { personListShape } from '../persons/persons.routes';
import { OrganisationsService } from './organisations.service';
import { OrganisationView } from './organisation.presenter';
import { PersonView } from '../persons/person.presenter';

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
    access: 'user',
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
    access: 'user',
    resource: 'organisations',
    summary: 'One organisation. Security: superuser, manager of it',
    description: 'Full view by default (adds parent and children).',
    input: z.object({ ...idParam, ...viewShape }),
    output: OrganisationView,
    async handler(ctx, input) {
      return { items: [await ctx.resolve(OrganisationsService).get(ctx.user, input.organisation_id, input.view ?? 'full')] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/organisations/:organisation_id/persons',
    access: 'user',
    resource: 'persons',
    summary: 'Members of an organisation, as GET /api/persons with organisation_id. Security: superuser, manager of it',
    description:
      'Direct members; recursive=1 adds the members of every sub-organisation. Filters (role_ids, event_id, has_competence_ids), paging and order ' +
      '(lastname, firstname, id) as GET /api/persons; simple view by default.',
    input: z.object({ ...idParam, ...personListShape }),
    output: PersonView,
    async handler(ctx, input) {
      const query = { ...input, organisation_id: input.organisation_id };
      return { items: await ctx.resolve(PersonsService).list(ctx.user, query, paging(input), input.view ?? 'simple') };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/organisations',
    access: 'user',
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
