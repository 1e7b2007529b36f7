import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, viewShape } from '../../platform/http/param-types';
import { PersonView, personRow, policies } from '../../people';
import { PersonViews } from '../../flows/persons/person-views';
import { PersonLifecycleFlow } from '../../flows/persons/person-lifecycle';

const input = z.object({ user_name: p.string(200).min(1, 'must not be empty'), ...viewShape });

const WHO =
  "Security: superuser, the person's manager (never on yourself, nor on a person who manages you; a superuser only by superusers). " +
  "Unknown user_name (or another tenant's): 404. Takes an Idempotency-Key (a repeat replays the first answer). " +
  'Asking again for the state the person is in changes nothing (200, message says so).';

/** Person lifecycle (issue 36): a leaver is deactivated, not erased; src/flows/persons/person-lifecycle.ts. */
export const personLifecycleRoutes = [
  defineRoute({
    method: 'put',
    path: '/persons/:user_name/deactivate',
    access: policies.actingManager('user_name', 'deactivate this person', personRow),
    idempotencyKey: true,
    resource: 'persons',
    summary: "Deactivate a person (a leaver): no login, left out of lists; history kept. Security: superuser, person's manager",
    description:
      'In one transaction: the person is marked deactivated (deactivated_at); their places (seat or wait list) in events not started yet are ended, ' +
      'each freed seat going to the wait list as a sign-off does (with its notice and the personevent.promoted webhook); the security event log gets ' +
      'person.deactivated and webhooks person.deactivated. At once: their sessions end, login answers 401 naming the deactivation, sign-on hashes and ' +
      'SWT tokens for them are refused (401), and every API process drops their cached login. They are left out of GET /api/persons, organisation ' +
      'persons, participants, the organisation competence level and expiry reminders unless state=deactivated or state=all is asked for; their ' +
      'registrations, sign-ons and messages stay. Distinct from erase (POST /api/persons/[user_name]/erase), which is irreversible. Answers the Person ' +
      '(full view by default: deactivated, deactivated_at). ' +
      WHO,
    input,
    output: PersonView,
    async handler(ctx, i) {
      const r = await ctx.resolve(PersonLifecycleFlow).deactivate(ctx.user, ctx.target);
      return { message: r.message, items: [await ctx.resolve(PersonViews).present(r.person, i.view ?? 'full')] };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/persons/:user_name/reactivate',
    access: policies.actingManager('user_name', 'reactivate this person', personRow),
    idempotencyKey: true,
    resource: 'persons',
    summary: "Reactivate a deactivated person: login works again. Security: superuser, person's manager",
    description:
      'The person logs in again with the password they had (no reset needed) and shows in lists again; the sign-ons ended by the deactivation stay ' +
      'ended (they sign on again). Writes person.reactivated to the security event log and webhooks. Answers the Person (full view by default). ' +
      WHO,
    input,
    output: PersonView,
    async handler(ctx, i) {
      const r = await ctx.resolve(PersonLifecycleFlow).reactivate(ctx.user, ctx.target);
      return { message: r.message, items: [await ctx.resolve(PersonViews).present(r.person, i.view ?? 'full')] };
    },
  }),
];
