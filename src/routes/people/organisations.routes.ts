import { z } from 'zod';
import { COSTS, defineRoute } from '../../platform/http/define-route';
import { jsonObject, p, pagingShape, paging, viewShape } from '../../platform/http/param-types';
import { OrganisationAuthoring, OrganisationData, OrganisationsService, OrganisationView, policies } from '../../people';
import { DeleteOrganisationFlow } from '../../flows/organisations/delete-organisation';

/** PUT: only the fields given change; parent_id moves the organisation and everything below it. */
const OrganisationUpdateData = OrganisationData.partial();

const idParam = { organisation_id: p.id() };

const ADMIN =
  'Security: a superuser anywhere; a manager only for an organisation strictly below one they are assigned to manage (they manage its parent), ' +
  'so never the organisation they manage itself nor one above it (403).';

export const organisationRoutes = [
  defineRoute({
    method: 'get',
    path: '/organisations',
    cost: COSTS.fullViewList,
    access: policies.manager('list organisations'),
    resource: 'organisations',
    summary: 'Organisations. Security: superuser (all), manager (the subtrees they manage)',
    description:
      "parent_id=0: roots (for a manager: the tops of their subtrees); parent_id=N: N's children the caller may see (unknown N: 404); " +
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
  defineRoute({
    method: 'put',
    idempotencyKey: true,
    path: '/organisations/:organisation_id',
    access: policies.organisationBelowManaged('organisation_id', 'change this organisation'),
    resource: 'organisations',
    summary: 'Change an organisation: rename, move (with its subtree), contact fields, external id',
    description:
      `${ADMIN} organisation_data (as on POST; only the fields given change; "" empties an optional field): name, parent_id, email, address, phone, extern_organisation_id. ` +
      'parent_id moves the organisation with everything below it: 0 makes it a root (superusers only); under itself or under an organisation below it is a 420 ' +
      'naming organisation_data[parent_id], as is an unknown parent; a manager moves only under an organisation they manage (403 otherwise). ' +
      'Moving changes who manages the subtree (the managers above its new place) on the next request. Answers the organisation (full view by default); ' +
      'message "nothing changed" when every value was already so. Audit entry organisation.updated (fields; from_parent_id and to_parent_id on a move).',
    input: z.object({ ...idParam, organisation_data: z.preprocess(jsonObject, OrganisationUpdateData), ...viewShape }),
    output: OrganisationView,
    async handler(ctx, input) {
      const { row, message } = await ctx.resolve(OrganisationAuthoring).update(ctx.user, ctx.target.id, input.organisation_data);
      return { message, items: [await ctx.resolve(OrganisationsService).present(row, input.view ?? 'full')] };
    },
  }),
  defineRoute({
    method: 'delete',
    idempotencyKey: true,
    path: '/organisations/:organisation_id',
    access: policies.organisationBelowManaged('organisation_id', 'delete this organisation'),
    resource: 'organisations',
    summary: 'Delete an empty organisation (else 409 naming what it holds)',
    description:
      `${ADMIN} Empty means: no members (deactivated ones too), no sub-organisations, no events hosted by it (past and cancelled ones too), no survey answers given for it, ` +
      'no competences restricted to it and no organisational functions; otherwise 409 naming each, e.g. "it holds 2 person(s), 1 sub-organisation(s)". ' +
      'Its manager assignments end with it (an audit entry manager.removed for each). Answers the organisation as it was (simple view). Audit entry organisation.deleted (name, parent_id, managers).',
    input: z.object({ ...idParam }),
    output: OrganisationView,
    async handler(ctx) {
      const row = await ctx.resolve(DeleteOrganisationFlow).delete(ctx.user, ctx.target.id);
      return { message: `organisation ${row.id} deleted`, items: [await ctx.resolve(OrganisationsService).present(row, 'simple')] };
    },
  }),
];
