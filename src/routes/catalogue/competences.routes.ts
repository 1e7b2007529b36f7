import { z } from 'zod';
import { COSTS, defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, viewShape, fieldsShape } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { COMPETENCE_TYPES, COMPETENCE_TYPE_IDS, CompetencesRepository, CompetenceView } from '../../catalogue';
import { BrowseCompetencesFlow } from '../../flows/catalogue/browse-competences';
import { policies } from '../../people';

const competenceTypes = p.stringList().pipe(z.array(z.enum(COMPETENCE_TYPE_IDS, { message: `must be competence types: ${COMPETENCE_TYPE_IDS.join(', ')}` })));

export const competenceRoutes = [
  defineRoute({
    method: 'get',
    path: '/competences',
    cost: COSTS.fullViewList,
    access: policies.userThen(
      "owner_only or instructor_only: superuser, the person's manager, self (user_name); organisation_ids: superuser, superadmin (decided with the filter)",
    ),
    resource: 'competences',
    summary: 'Competence catalogue; modules, checklist items and survey questions only appear nested in children',
    description:
      'Competences with a parent (modules, checklist items, survey questions) are never list items; they come nested, in the simple view, ' +
      'in `children` of their parent. competence_group_ids / external_competence_group_ids include the groups below. ' +
      "custom_attributes.<name>=<value>: the name must be defined for competences in the tenant's custom_attributes config item (else 420); values compare as text. " +
      'course_template_usage_allowed_only: types course and group; superusers and managers may use every template, others only those they own. ' +
      'owner_only / instructor_only: for the caller or user_name (self, their manager, superuser). ' +
      'organisation_ids / external_organisation_ids (superusers and superadmins only, else 403) and users_organisations_only=1 keep competences valid there, looking up the tree; ' +
      'a competence restricted to no organisation is valid everywhere. organisation_owner_only answers 501. Unknown types are a 420.',
    output: CompetenceView,
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
      // custom_attributes.<name> keys are checked against the tenant's definitions by BrowseCompetencesFlow.
      .catchall(z.unknown()),
    async handler(ctx, input) {
      return { items: await ctx.resolve(BrowseCompetencesFlow).search(ctx.user, input, paging(input), input.view ?? 'simple') };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/competences/:competence_id',
    access: policies.user,
    resource: 'competences',
    summary: 'One competence (full view by default) with its children',
    description: 'Any competence, a nested one (module, checklist item, survey question) too.',
    input: z.object({ competence_id: p.id(), ...viewShape }),
    output: CompetenceView,
    async handler(ctx, input) {
      return { items: await ctx.resolve(BrowseCompetencesFlow).one(input.competence_id, input.view ?? 'full') };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/competencetypes',
    access: policies.user,
    resource: 'competencetypes',
    summary: 'The competence types',
    input: z.object({ ...fieldsShape }),
    output: z
      .object({
        competence_type_id: z.enum(COMPETENCE_TYPE_IDS),
        name: z.string(),
        course_template: z.boolean().describe('events can be created from competences of this type (course, group)'),
        nested_only: z.boolean().describe('only exists as a child of another competence (module, checklist item, survey question)'),
      })
      .meta({ id: 'CompetenceType' }),
    async handler() {
      return {
        items: COMPETENCE_TYPES.map((t) => ({ competence_type_id: t.id, name: t.name, course_template: t.course_template, nested_only: t.nested })),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/lmsstarturls',
    access: policies.user,
    resource: 'lmsstarturls',
    summary: 'Start URLs of e-courses in the learning system',
    description:
      'Without competence_ids: active e-courses that have a start URL. competence_ids naming an unknown competence is a 404, one that is not an e-course a 420.',
    input: z.object({ competence_ids: p.idList().optional(), ...pagingShape, ...fieldsShape }),
    output: z.object({ competence_id: z.number().int(), title: z.string(), lms_start_url: z.string() }).meta({ id: 'LmsStartUrl' }),
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
