import { TenantClock } from '../../platform/time/tenant-clock';
import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, fieldsShape } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { ChangesRepository, EVENT_CHANGES } from '../../catalogue';
import { ChangeView } from './changes.views';
import { OrganisationDirectory, PersonAccess, policies } from '../../people';

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
      'Dates: ISO date or date-time; enddate defaults to now, a date-only enddate includes that whole day; date-only values are days of the tenant\'s time zone (config item tenant.timezone); the period is [startdate, enddate); ' +
      'for events enddate is ignored. Security: personcompetences and events: superusers for the whole tenant, managers only with an ' +
      'organisation_id / extern_organisation_id they manage (persons in that unit and below; events: with a sign-on of such a person); ' +
      'competences: superusers and managers. personcompetences: every registration made in the period (history rows too, `current` tells ' +
      'whether it is still current) and deletions as {competence_id, title, type, user_name, deleted: true, changed_at}. ' +
      'competences and events: rows updated in the period with deleted false. Ordered by changed_at; limit default 20, max 100.',
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
      const organisations = ctx.resolve(OrganisationDirectory);
      const access = ctx.resolve(PersonAccess);
      let organisationId = input.organisation_id;
      if (organisationId === undefined && input.extern_organisation_id !== undefined) {
        organisationId = await organisations.idByExternalId(input.extern_organisation_id);
        if (organisationId === undefined) throw ApiError.notFound(`organisation with extern_organisation_id ${input.extern_organisation_id}`);
      } else if (organisationId !== undefined && !(await organisations.find(organisationId))) {
        throw ApiError.notFound(`organisation ${organisationId}`);
      }
      // Who may read depends on Type and on the organisation found above.
      const user = ctx.user;
      if (input.Type === 'competences') {
        if (!user.superuser && !(await access.isManager(user))) throw ApiError.forbidden('the changes feed is for superusers and managers');
      } else if (organisationId === undefined) {
        if (!user.superuser) throw ApiError.forbidden('not authorised to read the changes of the whole tenant (managers pass organisation_id): superusers only');
      } else {
        await access.assertManagesOrganisation(user, organisationId, 'read the changes of this organisation');
      }
      const clock = ctx.resolve(TenantClock);
      const start = clock.start(input.startdate);
      const end = input.enddate === undefined ? clock.now() : clock.end(input.enddate);
      if (input.Type !== 'events' && end < start) throw ApiError.malformed('enddate', 'must not be before startdate');
      const page = paging(input);
      const repo = ctx.resolve(ChangesRepository);
      const items =
        input.Type === 'personcompetences'
          ? await repo.personCompetences({ start, end }, organisationId, page)
          : input.Type === 'competences'
            ? await repo.competences({ start, end }, page)
            : await ctx.resolve(EVENT_CHANGES).since(start, organisationId, page);
      return { items };
    },
  }),
];
