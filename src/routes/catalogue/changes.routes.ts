import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, fieldsShape } from '../../platform/http/param-types';
import { ChangesFeedFlow } from '../../flows/changes/changes-feed';
import { ChangeView } from './changes.views';
import { policies } from '../../people';

export const changesRoutes = [
  defineRoute({
    method: 'get',
    path: '/changes',
    access: policies.userThen(
      'personcompetences and events: superusers for the whole tenant, managers with an organisation they manage; competences: superusers and managers',
    ),
    resource: 'changes',
    summary: 'Objects changed in a period (events, personcompetences or competences); deletions as {deleted: true}',
    description:
      "Dates: ISO date or date-time; enddate defaults to now, a date-only enddate includes that whole day; date-only values are days of the tenant's time zone (config item tenant.timezone); the period is [startdate, enddate); " +
      'for events enddate is ignored. Security: personcompetences and events: superusers for the whole tenant, managers only with an ' +
      'organisation_id / extern_organisation_id they manage (persons in that unit and below; events: with a sign-on of such a person); ' +
      'competences: superusers and managers. personcompetences: every registration made in the period (history rows too, `current` tells ' +
      'whether it is still current) and deletions as {competence_id, title, type, user_name, deleted: true, changed_at}. ' +
      'competences and events: rows updated in the period with deleted false; events deleted since startdate as {event_id, title, competence_id, parent_id, starts_at, ends_at, deleted: true, changed_at} (not with organisation_id: a deleted event never had a sign-on). Ordered by changed_at; limit default 20, max 100.',
    output: ChangeView,
    input: z.object({
      Type: z.string().pipe(z.enum(['events', 'personcompetences', 'competences'], { message: 'must be events, personcompetences or competences' })),
      startdate: p.when(),
      // A date without time is inclusive: the whole day counts.
      enddate: p.when().optional(),
      organisation_id: p.id().optional(),
      extern_organisation_id: p.string(200).optional(),
      ...pagingShape,
      ...fieldsShape,
    }),
    async handler(ctx, input) {
      const items = await ctx.resolve(ChangesFeedFlow).read(ctx.user, {
        type: input.Type,
        startdate: input.startdate,
        enddate: input.enddate,
        organisationId: input.organisation_id,
        externOrganisationId: input.extern_organisation_id,
        page: paging(input),
      });
      return { items };
    },
  }),
];
