import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject, p } from '../../platform/http/param-types';
import { policies } from '../../people';
import { RoleAuthoring, RolesRepository, presentRole, type RoleData, type RoleRow } from '../../catalogue';
import { RoleView } from './roles.views';
import { roleData } from './authoring-params';

const SECURITY = 'superuser, superadmin';
const ROLE_DATA =
  'role_data: bracket form, a JSON object or JSON text: name (required on create), meta_type (role, specialrole or position; default role), ' +
  'description (empty clears it); unknown fields are a 420. Audited (role.created|updated|deleted).';

const withRequirements = async (repo: RolesRepository, role: RoleRow) => ({ ...presentRole(role), requirements: await repo.requirementsOf(role.id) });

export const roleAuthoringRoutes = [
  defineRoute({
    method: 'post',
    path: '/roles',
    access: policies.superuserOrSuperadmin('create roles'),
    resource: 'roles',
    summary: `Create a role. Security: ${SECURITY}`,
    description: `Answers the new role (with its requirements, none yet). ${ROLE_DATA}`,
    input: z.object({ role_data: z.preprocess(jsonObject, roleData(true)) }),
    output: RoleView,
    async handler(ctx, input) {
      // name is required by the schema of a creation
      const row = await ctx.resolve(RoleAuthoring).create(ctx.user, input.role_data as RoleData & { name: string });
      return { message: 'role created', items: [await withRequirements(ctx.resolve(RolesRepository), row)] };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/roles/:role_id',
    access: policies.superuserOrSuperadmin('change roles'),
    resource: 'roles',
    summary: `Change a role (only the fields given). Security: ${SECURITY}`,
    description: `Unknown id or another tenant's: 404. Answers the role with its requirements. ${ROLE_DATA}`,
    input: z.object({ role_id: p.id(), role_data: z.preprocess(jsonObject, roleData(false)) }),
    output: RoleView,
    async handler(ctx, input) {
      const row = await ctx.resolve(RoleAuthoring).update(ctx.user, input.role_id, input.role_data);
      return { message: 'role updated', items: [await withRequirements(ctx.resolve(RolesRepository), row)] };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/roles/:role_id',
    access: policies.superuserOrSuperadmin('delete roles'),
    errors: [409],
    resource: 'roles',
    summary: `Delete a role nobody holds. Security: ${SECURITY}`,
    description:
      'A role held by persons or made available on organisations (an organisational function) is a 409 naming them: take it away first. ' +
      'Its requirements and its admins go with it. Answers the deleted role. Unknown id: 404. Audited (role.deleted, with the competences it required).',
    input: z.object({ role_id: p.id() }),
    output: RoleView,
    async handler(ctx, input) {
      const row = await ctx.resolve(RoleAuthoring).delete(ctx.user, input.role_id);
      return { message: 'role deleted', items: [presentRole(row)] };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/roles/:role_id/requirements',
    access: policies.superuserOrSuperadmin('change requirements'),
    errors: [409],
    resource: 'roles',
    summary: `Add a requirement to a role, or change whether it is mandatory. Security: ${SECURITY}`,
    description:
      'competence_id: a top-level competence (a module, checklist item or question is a 420: require its parent); unknown role or competence: 404. ' +
      'mandatory: 1 (default) or 0 (optional). Shows at once in GET /api/personcompetences?state=missing and GET /api/competencelevel of every ' +
      'holder of the role. Answers the role with its requirements. Audited (requirement.changed, subject the role id).',
    input: z.object({ role_id: p.id(), competence_id: p.id(), mandatory: p.bool().optional() }),
    output: RoleView,
    async handler(ctx, input) {
      await ctx.resolve(RoleAuthoring).setRequirement(ctx.user, input.role_id, input.competence_id, input.mandatory ?? true);
      const repo = ctx.resolve(RolesRepository);
      return { message: 'requirement set', items: [await withRequirements(repo, (await repo.byId(input.role_id))!)] };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/roles/:role_id/requirements',
    access: policies.superuserOrSuperadmin('change requirements'),
    resource: 'roles',
    summary: `Remove a requirement from a role. Security: ${SECURITY}`,
    description:
      'competence_id: the required competence; 404 when the role is unknown or does not require it. Shows at once in the missing lists and ' +
      'competence levels of the holders. Answers the role with its remaining requirements. Audited (requirement.removed).',
    input: z.object({ role_id: p.id(), competence_id: p.id() }),
    output: RoleView,
    async handler(ctx, input) {
      await ctx.resolve(RoleAuthoring).removeRequirement(ctx.user, input.role_id, input.competence_id);
      const repo = ctx.resolve(RolesRepository);
      return { message: 'requirement removed', items: [await withRequirements(repo, (await repo.byId(input.role_id))!)] };
    },
  }),
];
