import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, viewShape, fieldsShape } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { TENANT_DB } from '../../platform/tokens';
import { policies } from '../../people';
import { categoryRows, competenceGroupPage, competenceGroupRows, type CatalogueTreeRow as TreeRow } from '../../catalogue';

const groupShape = {
  competence_group_id: z.number().int(),
  name: z.string(),
  parent_id: z.number().int().nullable().describe('the group above; null for a root group'),
  external_id: z.string().nullable(),
};
const SubGroupView: z.ZodType = z.object({ ...groupShape, sub_groups: z.array(z.lazy(() => SubGroupView)) }).meta({ id: 'CompetenceSubGroup' });
/** In lists without sub groups; one by id nests all groups below it in `sub_groups`. */
export const CompetenceGroupView = z
  .object({
    ...groupShape,
    sub_groups: z.array(SubGroupView).optional().describe('GET /competencegroups/{id} only: the groups below, recursively'),
  })
  .meta({ id: 'CompetenceGroup' });

const categoryShape = {
  category_id: z.number().int(),
  name: z.string(),
  parent_id: z.number().int().nullable().describe('the category above; null for a root category'),
  description: z.string().nullable().optional().describe('full view'),
};
const ChildCategoryView: z.ZodType = z
  .object({ ...categoryShape, children: z.array(z.lazy(() => ChildCategoryView)).optional() })
  .meta({ id: 'CategoryChild' });
/** simple: id, name, parent; full adds description; `children` with tree=1 or for one by id in full view. */
export const CategoryView = z
  .object({
    ...categoryShape,
    children: z.array(ChildCategoryView).optional().describe('sub categories, recursively: with tree=1, or GET /categories/{id} in full view'),
  })
  .meta({ id: 'Category' });

const group = (g: TreeRow) => ({ competence_group_id: g.id, name: g.name, parent_id: g.parent_id, external_id: g.external_id ?? null });
const category = (c: TreeRow) => ({ category_id: c.id, name: c.name, parent_id: c.parent_id });

/** Nests rows under their parents; `shape` builds each node. */
function tree<T extends object>(rows: TreeRow[], rootId: number | null, shape: (r: TreeRow) => T, key: string): (T & Record<string, unknown>)[] {
  return rows.filter((r) => r.parent_id === rootId).map((r) => ({ ...shape(r), [key]: tree(rows, r.id, shape, key) }));
}

export const catalogueTreeRoutes = [
  defineRoute({
    method: 'get',
    path: '/competencegroups',
    access: policies.user,
    resource: 'competencegroups',
    summary: 'Competence groups: root groups, or all groups with all=1',
    description: 'Ordered by id; paging applies. Sub groups of one group, nested: GET /api/competencegroups/[id].',
    input: z.object({ all: p.bool().optional(), ...pagingShape, ...fieldsShape }),
    output: CompetenceGroupView,
    async handler(ctx, input) {
      const { limit, offset } = paging(input);
      return { items: (await competenceGroupPage(ctx.resolve(TENANT_DB), { all: !!input.all, limit, offset })).map(group) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/competencegroups/:competence_group_id',
    access: policies.user,
    resource: 'competencegroups',
    summary: 'One competence group with its sub groups (nested)',
    description: 'sub_groups nests every group below, recursively. Unknown id: 404.',
    input: z.object({ competence_group_id: p.id(), ...fieldsShape }),
    output: CompetenceGroupView,
    async handler(ctx, input) {
      const rows = await competenceGroupRows(ctx.resolve(TENANT_DB));
      const g = rows.find((r) => r.id === input.competence_group_id);
      if (!g) throw ApiError.notFound(`competence group ${input.competence_group_id}`);
      return { items: [{ ...group(g), sub_groups: tree(rows, g.id, group, 'sub_groups') }] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/categories',
    access: policies.user,
    resource: 'categories',
    summary: 'Categories, flat or as a tree (tree=1: root categories with children)',
    description: 'tree=1: paging applies to the list of root categories, each carrying its `children` recursively.',
    input: z.object({ tree: p.bool().optional(), ...pagingShape, ...viewShape }),
    output: CategoryView,
    async handler(ctx, input) {
      const rows = await categoryRows(ctx.resolve(TENANT_DB));
      const full = input.view === 'full';
      const shape = (c: TreeRow) => (full ? { ...category(c), description: c.description ?? null } : category(c));
      const all = input.tree ? tree(rows, null, shape, 'children') : rows.map(shape);
      const { limit, offset } = paging(input);
      return { items: all.slice(offset, offset + limit) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/categories/:category_id',
    access: policies.user,
    resource: 'categories',
    summary: 'One category (full view: description and sub categories)',
    input: z.object({ category_id: p.id(), ...viewShape }),
    output: CategoryView,
    async handler(ctx, input) {
      const rows = await categoryRows(ctx.resolve(TENANT_DB));
      const c = rows.find((r) => r.id === input.category_id);
      if (!c) throw ApiError.notFound(`category ${input.category_id}`);
      if (input.view === 'simple') return { items: [category(c)] };
      const full = (r: TreeRow) => ({ ...category(r), description: r.description ?? null });
      return { items: [{ ...full(c), children: tree(rows, c.id, full, 'children') }] };
    },
  }),
];
