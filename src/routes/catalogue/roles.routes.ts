import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, fieldsShape, viewShape } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { PersonAccess } from '../../people';
import { CompetencesRepository, RolesRepository, presentRole } from '../../catalogue';
import { ListRolesFlow } from '../../flows/catalogue/list-roles';
import { PositionView, RoleView } from './roles.views';
import { policies } from '../../people';

export const ROLE_META_TYPES = ['role', 'specialrole', 'position'] as const;
export const roleMetaTypes = p.stringList().pipe(z.array(z.enum(ROLE_META_TYPES, { message: 'must be role, specialrole and/or position' })));

export const roleRoutes = [
  defineRoute({
    method: 'get',
    path: '/roles',
    access: policies.either(
      'with all=1',
      (i) => !!i.all,
      policies.superuserOrSuperadmin('list every role'),
      policies.when(
        'without competence_id and organisation ids',
        (i) => i.competence_id === undefined && !i.organisation_ids && !i.extern_organisation_ids,
        policies.selfOrManager('user_name', 'list the roles of {person}'),
      ),
    ),
    resource: 'roles',
    summary: 'Roles: of a person (default the caller), for a competence (with mandatory), available in organisations, or all (all=1)',
    description:
      'With competence_id: any logged-in user; each role carries `mandatory`; `state` only together with competence_id (else 420). ' +
      'With organisation_ids / extern_organisation_ids: roles made available on those units or above. ' +
      'all=1 (superusers and superadmins; else 403): every role of the tenant, still narrowed by term and role_meta_types. ' +
      "Otherwise the roles of user_name (default the caller; self, the person's manager or a superuser).",
    output: RoleView,
    input: z.object({
      user_name: p.string(200).optional(),
      term: p.string(200).optional(),
      competence_id: p.id().optional(),
      state: z.enum(['mandatory', 'optional'], { message: 'must be mandatory or optional' }).optional(),
      role_meta_types: roleMetaTypes.optional(),
      organisation_ids: p.idList().optional(),
      extern_organisation_ids: p.stringList().optional(),
      all: p.bool().optional(),
      ...pagingShape,
      ...fieldsShape,
    }),
    async handler(ctx, input) {
      const query = {
        term: input.term,
        metaTypes: input.role_meta_types,
        competenceId: input.competence_id,
        state: input.state,
        organisationIds: input.organisation_ids,
        externOrganisationIds: input.extern_organisation_ids,
        all: input.all,
      };
      return { items: await ctx.resolve(ListRolesFlow).list(query, ctx.target, paging(input)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/roles/:role_id',
    access: policies.userThen('superusers, superadmins and the admins of the role'),
    resource: 'roles',
    summary: 'One role with its requirements (superusers, superadmins and admins of the role)',
    description: 'Security: superusers, superadmins and the admins of this role; others 403 (managers and holders of the role too).',
    output: RoleView,
    input: z.object({ role_id: p.id(), ...fieldsShape }),
    async handler(ctx, input) {
      const repo = ctx.resolve(RolesRepository);
      const role = await repo.byId(input.role_id);
      if (!role) throw ApiError.notFound(`role ${input.role_id}`);
      const user = ctx.user;
      const allowed = user.superuser || (await ctx.resolve(PersonAccess).isSuperadmin(user)) || (await repo.administers(user.personId, role.id));
      if (!allowed) throw ApiError.forbidden('not authorised to see this role: superusers, superadmins and admins of the role only');
      return { items: [{ ...presentRole(role), requirements: await repo.requirementsOf(role.id) }] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/positions',
    access: policies.selfOrManager('user_name', 'list the positions of {person}'),
    resource: 'positions',
    summary: 'Positions (roles of meta type position) of a person',
    description:
      "The roles of meta type position that user_name (default the caller; self, the person's manager or a superuser) holds; position_id is the role id.",
    output: PositionView,
    input: z.object({ user_name: p.string(200).optional(), ...pagingShape, ...fieldsShape }),
    async handler(ctx, input) {
      const rows = await ctx.resolve(RolesRepository).list({ personId: ctx.target.id, metaTypes: ['position'] }, paging(input));
      return { items: rows.map(({ id, ...r }) => ({ position_id: id, ...presentRole({ id, ...r }) })) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/competencegroups/:competence_group_id/roles',
    access: policies.user,
    resource: 'roles',
    summary: 'Roles that have requirements on competences in or below the group',
    description: 'Any logged-in user.',
    output: RoleView,
    input: z.object({ competence_group_id: p.id(), ...pagingShape, ...viewShape }),
    async handler(ctx, input) {
      const competences = ctx.resolve(CompetencesRepository);
      if (!(await competences.existingIds('competence_groups', [input.competence_group_id])).size) {
        throw ApiError.notFound(`competence group ${input.competence_group_id}`);
      }
      const groupIds = await competences.groupSubtree([input.competence_group_id]);
      const rows = await ctx.resolve(RolesRepository).list({ groupIds }, paging(input));
      return { items: rows.map(presentRole) };
    },
  }),
];
