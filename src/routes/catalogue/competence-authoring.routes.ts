import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject, p, viewShape } from '../../platform/http/param-types';
import { CompetenceView } from '../../catalogue';
import { policies } from '../../people';
import { BrowseCompetencesFlow } from '../../flows/catalogue/browse-competences';
import { CompetenceAuthoringFlow } from '../../flows/catalogue/author-competence';
import { competenceAuthor, competenceCreator } from '../../flows/catalogue/competence-authoring-access';
import { competenceData } from './authoring-params';

/** The competence_data rules shared by POST and PUT (src/catalogue/authoring/README.md). */
const COMPETENCE_DATA =
  "competence_data: bracket form (competence_data[title]=...), a JSON object or JSON text, with the read side's field names; unknown fields are a 420. " +
  'An empty value clears a field. Each problem is a 420 naming competence_data[field]. Nesting: a course or group holds modules, a checklist ' +
  'checklist items, a survey questions and a question follow-up questions; modules, checklist items and questions need such a parent_id, every ' +
  'other type stays at the top. checked_by (self, manager, both; default self) only on checklist items; lms_start_url only on e-courses, an absolute ' +
  'http or https URL. competence_group_id, category_ids, attribute_ids (replace the set; empty empties it), owner_user_name and instructor_user_name ' +
  "must exist. custom_attributes: names the tenant's custom_attributes config item defines for competences, values of the defined type; they are " +
  'merged into the stored ones, an empty value removes one. valid_months 1..1200. pass_mark 0..100 (empty: 100): a result recorded with PUT /api/participants at or above it passes. Audited (competence.created / competence.updated) and sent as ' +
  'webhook events in the same transaction; shown at once by GET /api/competences and GET /api/changes?Type=competences.';

export const competenceAuthoringRoutes = [
  defineRoute({
    method: 'post',
    path: '/competences',
    access: competenceCreator((i) => i.competence_data?.parent_id),
    keepsAccounts: true,
    errors: [409],
    resource: 'competences',
    summary: 'Create a competence. Security: superuser, superadmin; a module, item or question also the owner of its parent',
    description:
      'title and type (course, group, module, ecourse, checklist, checklist_item, signature, formal, skill, survey, question) are required (419). ' +
      'Answers the new competence in its full view (as GET /api/competences/[id]), children included. Only superusers and superadmins may name an ' +
      'owner other than the caller (else 403). ' +
      COMPETENCE_DATA,
    input: z.object({ competence_data: z.preprocess(jsonObject, competenceData(true)), ...viewShape }),
    output: CompetenceView,
    async handler(ctx, input) {
      const id = await ctx.resolve(CompetenceAuthoringFlow).create(ctx.user, input.competence_data);
      return { message: 'competence created', items: await ctx.resolve(BrowseCompetencesFlow).one(id, input.view ?? 'full') };
    },
  }),
  defineRoute({
    method: 'put',
    idempotencyKey: true,
    path: '/competences/:competence_id',
    access: competenceAuthor('competence_id', 'change this competence'),
    keepsAccounts: true,
    errors: [409],
    resource: 'competences',
    summary: 'Change a competence (only the fields given). Security: superuser, superadmin, the owner of it or of the competence it belongs to',
    description:
      'The type changes only while nothing is registered on the competence and no event or survey answer uses it, and only to a type that fits ' +
      'its parent and holds its children (else 409). An owner who is neither superuser nor superadmin may not change owner_user_name (403) nor ' +
      "move the competence under a parent they do not author (403). Unknown id or another tenant's: 404. Answers the competence in its full view. " +
      COMPETENCE_DATA,
    input: z.object({ competence_id: p.id(), competence_data: z.preprocess(jsonObject, competenceData(false)), ...viewShape }),
    output: CompetenceView,
    async handler(ctx, input) {
      await ctx.resolve(CompetenceAuthoringFlow).update(ctx.user, ctx.target, input.competence_data);
      return { message: 'competence updated', items: await ctx.resolve(BrowseCompetencesFlow).one(input.competence_id, input.view ?? 'full') };
    },
  }),
  defineRoute({
    method: 'delete',
    idempotencyKey: true,
    path: '/competences/:competence_id',
    access: policies.superuserOrSuperadmin('delete competences'),
    keepsAccounts: true,
    errors: [409],
    resource: 'competences',
    summary: 'Delete a competence that nothing holds or uses, with its modules, items or questions. Security: superuser, superadmin',
    description:
      'Refused (409, naming what holds it) while a person holds it (a current registration), an event uses it or names it as a prerequisite, a survey ' +
      'answer answers it, or a role requires it; the same for every competence inside it. Deactivate it with active=0 instead. ' +
      'Owners may deactivate but not delete. Registration history of the competence goes with it. Answers the deleted competence in its simple view; ' +
      'GET /api/changes?Type=competences lists the deletion (deleted: true), webhook competence.deleted for it and each one inside it. Unknown id: 404.',
    input: z.object({ competence_id: p.id() }),
    output: CompetenceView,
    async handler(ctx, input) {
      return { message: 'competence deleted', items: [await ctx.resolve(CompetenceAuthoringFlow).delete(ctx.user, input.competence_id)] };
    },
  }),
];
