import { z } from 'zod';
import { COSTS, defineRoute } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { policies } from '../../people';
import { personWithDetails } from '../../flows/persons/person-views';
import { ErasePersonFlow } from '../../flows/persons/erase-person';
import { EXPORT_PAGE_DEFAULT, EXPORT_PAGE_MAX, ExportPersonFlow, PersonExportView } from '../../flows/persons/export-person';

const userNameParam = p.string(200).min(1, 'must not be empty');

export const privacyRoutes = [
  defineRoute({
    method: 'get',
    path: '/persons/:user_name/export',
    cost: COSTS.export,
    access: policies.selfOrSuperuser('user_name', 'export this person', personWithDetails),
    resource: 'export',
    summary: 'Everything stored about a person (GDPR access and portability). Security: superuser, self',
    description:
      'One object: person (full view), roles, personcompetences with history (superseded_at / deleted_at rows too), personevents, ' +
      'surveyanswers, messages to and from the person with delivery states, files (metadata with download_url) and the security ' +
      'event log entries where the person is actor or subject. Never a password hash. Others: 403; unknown user_name: 404. ' +
      `Paged: every list section holds at most limit rows (default ${EXPORT_PAGE_DEFAULT}, 1 to ${EXPORT_PAGE_MAX}, else 420) from offset on, in id order; ` +
      'paging.more names the sections that go on: ask again with offset + limit until it is empty. person and roles are in every page.',
    input: z.object({
      user_name: userNameParam,
      limit: p
        .int()
        .pipe(z.number().min(1, 'must be at least 1').max(EXPORT_PAGE_MAX, `must be at most ${EXPORT_PAGE_MAX}`))
        .optional(),
      offset: p.int().pipe(z.number().min(0, 'must not be negative')).optional(),
    }),
    output: PersonExportView,
    async handler(ctx, input) {
      return { items: [await ctx.resolve(ExportPersonFlow).export(ctx.target, { limit: input.limit ?? EXPORT_PAGE_DEFAULT, offset: input.offset ?? 0 })] };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/persons/:user_name/erase',
    access: policies.superuser('erase a person'),
    resource: 'persons',
    errors: [409],
    summary: 'Anonymise a person irreversibly (GDPR erasure). Security: superuser (not themself)',
    description:
      'confirm must equal user_name (419 missing, 420 different). Personal fields, password, pending passwords and sessions go; ' +
      'user_name becomes erased-<person_id>; texts and addresses of messages to the person are blanked; their files are deleted; ' +
      'free texts in their survey answers are blanked. Registrations, sign-ons and roles stay under the placeholder for statistics. ' +
      'Earlier security event log entries naming the person are rewritten to the placeholder, and person.erased is recorded. ' +
      'Afterwards the old user_name is a 404 and cannot log in. 409 when another person already holds the placeholder name.',
    input: z.object({ user_name: userNameParam, confirm: z.string().max(200) }),
    output: z.object({ user_name: z.string().describe('the placeholder, erased-<person_id>') }).meta({ id: 'ErasedPerson' }),
    async handler(ctx, input) {
      const placeholder = await ctx.resolve(ErasePersonFlow).erase(ctx.user, input.user_name, input.confirm);
      return { message: 'person erased', items: [{ user_name: placeholder }] };
    },
  }),
];
