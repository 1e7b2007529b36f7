import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject, p } from '../../platform/http/param-types';
import { policies } from '../../people';
import { CatalogueTreeAuthoring, type CatalogueTreeRow, type TreeKind } from '../../catalogue';
import { CategoryView, CompetenceGroupView } from './catalogue-tree.routes';
import { treeNodeData } from './authoring-params';

const group = (g: CatalogueTreeRow) => ({ competence_group_id: g.id, name: g.name, parent_id: g.parent_id, external_id: g.external_id ?? null });
const category = (c: CatalogueTreeRow) => ({ category_id: c.id, name: c.name, parent_id: c.parent_id, description: c.description ?? null });

const TREE = {
  competencegroup: {
    path: '/competencegroups',
    idParam: 'competence_group_id',
    dataParam: 'competence_group_data',
    noun: 'competence group',
    plural: 'competence groups',
    resource: 'competencegroups',
    view: CompetenceGroupView,
    present: group,
    fields: 'name (required on create), parent_id (empty: a root), external_id',
    inUse: 'a group that still has sub-groups or competences',
  },
  category: {
    path: '/categories',
    idParam: 'category_id',
    dataParam: 'category_data',
    noun: 'category',
    plural: 'categories',
    resource: 'categories',
    view: CategoryView,
    present: category,
    fields: 'name (required on create), parent_id (empty: a root), description',
    inUse: 'a category that still has sub-categories or is used by competences',
  },
} as const;

const SECURITY = 'superuser, superadmin';

/** POST, PUT, DELETE of competence groups or categories: the same rules for both trees. */
function treeRoutes(kind: TreeKind) {
  const k = TREE[kind];
  const access = policies.superuserOrSuperadmin(`change ${k.plural}`);
  const rules =
    `${k.dataParam}: bracket form, a JSON object or JSON text; ${k.fields}; unknown fields are a 420. A parent_id naming no ${k.noun}, the node ` +
    `itself or one below it (a cycle) is a 420 naming ${k.dataParam}[parent_id]. Audited (${kind}.created|updated|deleted).`;
  const data = (required: boolean) => z.preprocess(jsonObject, treeNodeData(kind, required));
  const id = { [k.idParam]: p.id() } as Record<string, ReturnType<typeof p.id>>;
  return [
    defineRoute({
      method: 'post',
      path: k.path,
      access,
      keepsAccounts: true,
      resource: k.resource,
      summary: `Create a ${k.noun}. Security: ${SECURITY}`,
      description: `Answers the new ${k.noun}. ${rules}`,
      input: z.object({ [k.dataParam]: data(true) }),
      output: k.view,
      async handler(ctx, input: any) {
        const row = await ctx.resolve(CatalogueTreeAuthoring).create(ctx.user, kind, input[k.dataParam]);
        return { message: `${k.noun} created`, items: [k.present(row)] };
      },
    }),
    defineRoute({
      method: 'put',
      path: `${k.path}/:${k.idParam}`,
      access,
      keepsAccounts: true,
      errors: [409],
      resource: k.resource,
      summary: `Change a ${k.noun} (only the fields given). Security: ${SECURITY}`,
      description: `Unknown id or another tenant's: 404. ${rules}`,
      input: z.object({ ...id, [k.dataParam]: data(false) }),
      output: k.view,
      async handler(ctx, input: any) {
        const row = await ctx.resolve(CatalogueTreeAuthoring).update(ctx.user, kind, input[k.idParam], input[k.dataParam]);
        return { message: `${k.noun} updated`, items: [k.present(row)] };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${k.path}/:${k.idParam}`,
      access,
      keepsAccounts: true,
      errors: [409],
      resource: k.resource,
      summary: `Delete a ${k.noun} nothing uses. Security: ${SECURITY}`,
      description: `Deleting ${k.inUse} is a 409 naming them. Answers the deleted ${k.noun}. Unknown id: 404. Audited (${kind}.deleted).`,
      input: z.object(id),
      output: k.view,
      async handler(ctx, input: any) {
        const row = await ctx.resolve(CatalogueTreeAuthoring).delete(ctx.user, kind, input[k.idParam]);
        return { message: `${k.noun} deleted`, items: [k.present(row)] };
      },
    }),
  ];
}

export const catalogueStructureRoutes = [...treeRoutes('competencegroup'), ...treeRoutes('category')];
