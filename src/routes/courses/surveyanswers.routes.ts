import { z } from 'zod';
import { COSTS, defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, viewShape, fieldsShape } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { TENANT_DB } from '../../platform/tokens';
import { SurveyAnswerView, presentAnswer, surveyData } from '../../courses';
import { policies, type TargetPerson } from '../../people';
import { findCompetence } from '../../catalogue';
import { SurveyAnswersFlow, type Answerer, type AnswersOf } from '../../flows/surveys/survey-answers';

const idParam = { surveyanswer_id: p.id() };

const lockRoute = (action: 'lock' | 'unlock') =>
  defineRoute({
    method: 'put',
    path: `/surveyanswers/:surveyanswer_id/${action}`,
    access: policies.userThen(
      "superuser, the person's manager (not for a person who manages them), the survey's owner or instructor; the answering person cannot unlock their own answer",
    ),
    resource: 'surveyanswers',
    summary: `${action === 'lock' ? 'Locks' : 'Unlocks'} a survey answer (superuser, manager, owner or instructor of the survey)`,
    description:
      'Returns the full SurveyAnswer. The answering person cannot unlock their own answer; a manager cannot lock or unlock the answer of a person who manages them.',
    input: z.object({ ...idParam, ...fieldsShape }),
    output: SurveyAnswerView,
    async handler(ctx, input) {
      const a = await ctx.resolve(SurveyAnswersFlow).setLocked(ctx.user, input.surveyanswer_id, action === 'lock');
      return { items: [presentAnswer(a, 'full')], message: action === 'lock' ? 'survey answer locked' : 'survey answer unlocked' };
    },
  });

export const surveyAnswerRoutes = [
  defineRoute({
    method: 'get',
    path: '/surveyanswer/:surveyanswer_id',
    access: policies.userThen("superuser, the person, their manager, the survey's owner or instructor"),
    resource: 'surveyanswer',
    summary: 'One survey answer with its items',
    description: "Visible to a superuser, the person, their manager and the survey's owner or instructor.",
    output: SurveyAnswerView,
    input: z.object({ ...idParam, ...pagingShape, ...viewShape }),
    async handler(ctx, input) {
      const svc = ctx.resolve(SurveyAnswersFlow);
      const a = await svc.find(input.surveyanswer_id);
      await svc.assertCanSee(ctx.user, a);
      return { items: [presentAnswer(a, input.view ?? 'full')] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/surveyanswers',
    cost: COSTS.fullViewList,
    access: policies.either(
      'with user_name',
      (i) => i.user_name !== undefined,
      policies.selfOrManager('user_name', 'see the survey answers of this person'),
      policies.when(
        'with organisation_id',
        (i) => i.organisation_id !== undefined,
        policies.organisationManager('organisation_id', 'see the survey answers of this organisation'),
      ),
    ),
    resource: 'surveyanswers',
    summary: 'Survey answers of a person, of an organisation, or (owner, superuser) of a survey',
    description:
      "user_name does not default to the caller. organisation_id: the organisation's own answers and those of its persons (its manager). " +
      "Without both only a superuser, or the survey's owner/instructor with survey_id. Newest first; simple view by default.",
    output: SurveyAnswerView,
    input: z.object({
      user_name: p.string(200).min(1).optional(),
      organisation_id: p.id().optional(),
      survey_id: p.id().optional(),
      ...pagingShape,
      ...viewShape,
    }),
    async handler(ctx, input) {
      const svc = ctx.resolve(SurveyAnswersFlow);
      let of: AnswersOf = 'everyone';
      if (input.user_name) {
        of = { personId: (ctx.target as TargetPerson).id };
      } else if (input.organisation_id) {
        of = { organisationId: input.organisation_id };
      } else if (!ctx.user.superuser) {
        const survey = input.survey_id ? await findCompetence(ctx.resolve(TENANT_DB), input.survey_id) : null;
        if (!survey || !svc.isSurveyAdmin(ctx.user, survey)) {
          throw ApiError.forbidden('give user_name or organisation_id; only a superuser, or the owner of survey_id, may list all answers');
        }
      }
      const rows = await svc.list(of, input.survey_id, paging(input));
      return { items: rows.map((r) => presentAnswer(r, input.view ?? 'simple')) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/surveyanswer',
    access: policies.either(
      'with organisation_id',
      (i) => i.organisation_id !== undefined,
      policies.organisationManager('organisation_id', 'answer surveys for this organisation'),
      policies.selfOrActingManager('user_name', 'answer surveys for this person'),
    ),
    resource: 'surveyanswer',
    summary: 'Answers a survey for the caller, user_name, or an organisation',
    description:
      'data: {"items":[{competence_id, value, children, file_data (Base64), file_name, file_title}]}; the survey is found from the questions, or given as survey_id. ' +
      "Items must follow the survey's question tree (else 420 naming the item). file_data is stored as a file of the answering person and the item keeps its file_id " +
      "(UPLOAD_MAX_BYTES per file, 413 beyond; a JSON body is at most 1 MB). user_name: superuser, the person's manager (not for a person who manages the caller), self; " +
      'organisation_id: an answer by the organisation (its manager or a superuser). data may be a JSON object or JSON text; top-level items are questions directly ' +
      "under the survey, children sub-questions of their item's question; value is a string, number, boolean, null or a list of those; items nest at most 10 levels. " +
      'Returns the full SurveyAnswer.',
    output: SurveyAnswerView,
    input: z.object({
      user_name: p.string(200).min(1).optional(),
      organisation_id: p.id().optional(),
      survey_id: p.id().optional(),
      data: surveyData,
      ...fieldsShape,
    }),
    async handler(ctx, input) {
      const who: Answerer = input.organisation_id ? { organisationId: input.organisation_id } : { personId: (ctx.target as TargetPerson).id };
      const a = await ctx.resolve(SurveyAnswersFlow).create(ctx.user, who, input.data, input.survey_id);
      return { items: [presentAnswer(a, 'full')], message: 'survey answer stored' };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/surveyanswers/:surveyanswer_id',
    access: policies.userThen('superuser, the person, their manager (not for a person who manages them)'),
    resource: 'surveyanswers',
    summary: 'Replaces the items of a survey answer; a locked answer answers 409 (use POST for a new answer)',
    description:
      'Superuser, the person, their manager (not for a person who manages the caller). Items keep uploaded files with file_id (a file of this answer); file_data is refused (420); files of replaced items are kept. A locked answer is a 409: submit a new one with POST /api/surveyanswer. Returns the full SurveyAnswer.',
    output: SurveyAnswerView,
    input: z.object({ ...idParam, data: surveyData, ...fieldsShape }),
    async handler(ctx, input) {
      const a = await ctx.resolve(SurveyAnswersFlow).replace(ctx.user, input.surveyanswer_id, input.data);
      return { items: [presentAnswer(a, 'full')], message: 'survey answer replaced' };
    },
  }),
  lockRoute('lock'),
  lockRoute('unlock'),
];
