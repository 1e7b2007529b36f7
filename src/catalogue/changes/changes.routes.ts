import { TenantClock } from '../../platform/time/tenant-clock';
import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, fieldsShape } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { AccessPolicy } from '../../platform/auth/access-policy';
import { TENANT_DB } from '../../platform/tokens';
import { ChangesRepository } from './changes.repository';
import { ChangeView } from './changes.views';

export const changesRoutes = [
  defineRoute({
    method: 'get',
    path: '/changes',
    access: 'user',
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
      const db = ctx.resolve(TENANT_DB);
      const policy = ctx.resolve(AccessPolicy);
      let organisationId = input.organisation_id;
      if (organisationId === undefined && input.extern_organisation_id !== undefined) {
        const org = await db.table('organisations').where('extern_organisation_id', input.extern_organisation_id).select('id').first();
        if (!org) throw ApiError.notFound(`organisation with extern_organisation_id ${input.extern_organisation_id}`);
        organisationId = org.id;
      } else if (organisationId !== undefined && !(await db.table('organisations').where('id', organisationId).first())) {
        throw ApiError.notFound(`organisation ${organisationId}`);
      }
      const user = ctx.user;
      if (input.Type === 'competences') {
        if (!user.superuser && !(await policy.isManager(user))) throw ApiError.forbidden('the changes feed is for superusers and managers');
      } else if (organisationId === undefined) {
        policy.assertSuperuser(user, 'read the changes of the whole tenant (managers pass organisation_id)');
      } else {
        await policy.assertManagesOrganisation(user, organisationId, 'read the changes of this organisation');
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
            : await repo.events(start, organisationId, page);
      return { items };
    },
  }),
];
