import { z } from 'zod';
import { defineRoute } from '../platform/http/define-route';
import { p, paging, pagingShape, viewShape, fieldsShape } from '../platform/http/param-types';
import { ApiError } from '../platform/errors/api-error';
import { CompetencesRepository } from './competences.repository';
import { CompetencePresenter } from './competences.presenter';
import { CompetenceSearch } from './competence-search';
import { COMPETENCE_TYPES, COMPETENCE_TYPE_IDS } from './competence-types';
import type { CompetenceRow } from './competence.row';
import type { RouteContext } from '../platform/http/define-route';

const competenceTypes = p.stringList().pipe(z.array(z.enum(COMPETENCE_TYPE_IDS, { message: `must be competence types: ${COMPETENCE_TYPE_IDS.join(', ')}` })));

async function present(ctx: RouteContext, rows: CompetenceRow[], view: 'simple' | 'full') {
  const repo = ctx.resolve(CompetencesRepository);
  const descendants = await repo.descendants(rows.map((r) => r.id));
  const presenter = new CompetencePresenter(descendants, await repo.extras([...rows, ...descendants]));
  return rows.map((r) => presenter.present(r, view));
}

export const competenceRoutes = [
  defineRoute({
    method: 'get',
    path: '/competences',
    access: 'user',
    resource: 'competences',
    summary: 'Competence catalogue; modules, checklist items and survey questions only appear nested in children',
    input: z
      .object({
        ...pagingShape,
        ...viewShape,
        mode: z.enum(['active', 'inactive', 'all'], { message: 'must be active, inactive or all' }).optional(),
        competence_group_ids: p.idList().optional(),
        external_competence_group_ids: p.stringList().optional(),
        types: competenceTypes.optional(),
        term: p.string(200).optional(),
        category_ids: p.idList().optional(),
        attribute_ids: p.idList().optional(),
        course_template_usage_allowed_only: p.bool().optional(),
        owner_only: p.bool().optional(),
        instructor_only: p.bool().optional(),
        organisation_owner_only: p.bool().optional(),
        users_organisations_only: p.bool().optional(),
        organisation_ids: p.idList().optional(),
        external_organisation_ids: p.stringList().optional(),
        user_name: p.string(200).optional(),
      })
      // custom_attributes.<name> keys are checked against the tenant's definitions by CompetenceSearch.
      .catchall(z.unknown()),
    async handler(ctx, input) {
      const filter = await ctx.resolve(CompetenceSearch).filter(ctx.user, input);
      const rows = filter ? await ctx.resolve(CompetencesRepository).search(filter, paging(input)) : [];
      return { items: await present(ctx, rows, input.view ?? 'simple') };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/competences/:competence_id',
    access: 'user',
    resource: 'competences',
    summary: 'One competence (full view by default) with its children',
    input: z.object({ competence_id: p.id(), ...viewShape }),
    async handler(ctx, input) {
      const row = await ctx.resolve(CompetencesRepository).byId(input.competence_id);
      if (!row) throw ApiError.notFound(`competence ${input.competence_id}`);
      return { items: await present(ctx, [row], input.view ?? 'full') };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/competencetypes',
    access: 'user',
    resource: 'competencetypes',
    summary: 'The competence types',
    input: z.object({ ...fieldsShape }),
    async handler() {
      return {
        items: COMPETENCE_TYPES.map((t) => ({ competence_type_id: t.id, name: t.name, course_template: t.course_template, nested_only: t.nested })),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/lmsstarturls',
    access: 'user',
    resource: 'lmsstarturls',
    summary: 'Start URLs of e-courses in the learning system',
    input: z.object({ competence_ids: p.idList().optional(), ...pagingShape, ...fieldsShape }),
    async handler(ctx, input) {
      const repo = ctx.resolve(CompetencesRepository);
      if (input.competence_ids) {
        const found = await repo.byIds(input.competence_ids);
        const unknown = input.competence_ids.filter((id) => !found.some((f) => f.id === id));
        if (unknown.length) throw ApiError.notFound(`competence ${unknown.join(', ')}`);
        const notE = found.filter((f) => f.type !== 'ecourse');
        if (notE.length) throw ApiError.malformed('competence_ids', `not e-courses: ${notE.map((f) => f.id).join(', ')}`);
      }
      const rows = await repo.ecourses(input.competence_ids, paging(input));
      return { items: rows.map((r) => ({ competence_id: r.id, title: r.title, lms_start_url: r.lms_start_url })) };
    },
  }),
];
