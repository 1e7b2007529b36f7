import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, fieldsShape } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { EventsService, PersonEventView, presentPersonEvent } from '../../courses';
import { PersonAccess, policies, type TargetPerson } from '../../people';
import { SignOnFlow } from '../../flows/sign-on/sign-on';
import { SignOnViewsFlow, type SignOnsOf } from '../../flows/sign-on/sign-on-views';

const userName = p.string(200).min(1).optional();

export const personEventRoutes = [
  defineRoute({
    method: 'get',
    path: '/personevents',
    access: policies.either(
      'with organisation_id',
      (i) => i.organisation_id !== undefined,
      policies.organisationManager('organisation_id', 'list the sign-ons of this organisation'),
      policies.when('with user_name', (i) => i.user_name !== undefined, policies.selfOrManager('user_name', 'list the sign-ons of this person')),
    ),
    resource: 'personevents',
    summary: 'Sign-ons of a person, of an organisation (and below), or (superuser, superadmin) of everyone',
    description:
      "organisation_id (that organisation and below; its manager or a superuser) overrides user_name. Without both a superuser or superadmin sees everyone's sign-ons, " +
      'anyone else their own (as the earlier reference did). waitlist=0 (default) lists seats, waitlist=1 wait-list entries only; signed-off rows are never listed. ' +
      'mode: future (default, not ended yet), finished, all. Paging: limit default 20, at most 100.',
    output: PersonEventView,
    input: z.object({
      user_name: userName,
      organisation_id: p.id().optional(),
      person_event_ids: p.idList().optional(),
      event_ids: p.idList().optional(),
      mode: z.enum(['future', 'finished', 'all'], { message: 'must be future, finished or all' }).optional(),
      waitlist: p.bool().optional(),
      ...pagingShape,
      ...fieldsShape,
    }),
    async handler(ctx, input) {
      const user = ctx.user;
      let of: SignOnsOf = 'everyone';
      if (input.organisation_id) {
        of = { organisationId: input.organisation_id };
      } else if (input.user_name) {
        of = { personIds: [(ctx.target as TargetPerson).id] };
      } else if (!user.superuser && !(await ctx.resolve(PersonAccess).isSuperadmin(user))) {
        // Without user_name and organisation_id anyone else gets their own sign-ons (as the earlier reference did).
        of = { personIds: [user.personId] };
      }
      const rows = await ctx
        .resolve(SignOnViewsFlow)
        .list(
          of,
          { eventIds: input.event_ids, personEventIds: input.person_event_ids, mode: input.mode ?? 'future', waitlist: input.waitlist ?? false },
          paging(input),
        );
      return { items: rows.map(presentPersonEvent) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/personevents/:event_id',
    access: policies.selfOrManager('user_name', 'see the sign-ons of this person'),
    resource: 'personevents',
    summary: "A person's live sign-on to an event (empty when not signed on)",
    description:
      "user_name defaults to the caller (superuser, the person's manager, self). Not signed on: an empty list and a message saying so. Unknown event: 404.",
    output: PersonEventView,
    input: z.object({ event_id: p.id(), user_name: userName, ...fieldsShape }),
    async handler(ctx, input) {
      await ctx.resolve(EventsService).get(input.event_id);
      const person = ctx.target;
      const row = await ctx.resolve(SignOnViewsFlow).live(person.id, input.event_id);
      return { items: row ? [presentPersonEvent(row)] : [], message: row ? 'OK' : `${person.user_name} is not signed on to event ${input.event_id}` };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/personevents/:event_id',
    access: policies.selfOrActingManager('user_name', 'sign this person on'),
    // sign-on bursts: the caller's cached account stays (person_events, orders, outboxes only)
    keepsAccounts: true,
    resource: 'personevents',
    summary: 'Signs a person on (onto the wait list when the event is full)',
    description:
      'Checked like check_join in one transaction on the locked event row (seats are never oversold). A refused sign-on is errorcode 409 with the reason texts ' +
      'in message plus can_join and reason in the envelope; module events cannot be signed on to (409). order_id/order_reference only with the order system ' +
      "enabled (otherwise ignored with a note in message); order_id must be an order of that person (else 420: someone else's order would bill them); " +
      "order_reference creates an order for the person (ignored, with a note, when order_id is given). Security: superuser, the person's manager " +
      '(not for a person who manages the caller), self.',
    output: PersonEventView,
    input: z.object({
      event_id: p.id(),
      user_name: userName,
      order_id: p.id().optional(),
      order_reference: p.string(200).min(1, 'must not be empty').optional(),
      ...fieldsShape,
    }),
    async handler(ctx, input) {
      // an unknown event is the 404 of the lock statement
      const r = await ctx.resolve(SignOnFlow).signOn(ctx.target, input.event_id, input);
      return { items: [presentPersonEvent(r.personEvent)], message: r.message };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/personevents/:event_id',
    access: policies.selfOrActingManager('user_name', 'sign this person off'),
    keepsAccounts: true,
    resource: 'personevents',
    summary: 'action=off signs a person off (the first on the wait list gets the seat); action=update is not implemented',
    description:
      'Returns the signed-off PersonEvent. 404 when not signed on; 409 on a locked event unless superuser; action=update answers 501. ' +
      'The seat goes to the longest-waiting person on the wait list; the message only says how many moved up. ' +
      "Security: superuser, the person's manager (not for a person who manages the caller), self.",
    output: PersonEventView,
    input: z.object({
      event_id: p.id(),
      user_name: userName,
      action: z.string().pipe(z.enum(['off', 'update'], { message: 'must be off or update' })),
      ...fieldsShape,
    }),
    async handler(ctx, input) {
      if (input.action === 'update') throw new ApiError(501, 'action=update is not implemented; use action=off to sign off');
      await ctx.resolve(EventsService).get(input.event_id);
      const r = await ctx.resolve(SignOnFlow).signOff(ctx.user, ctx.target, input.event_id);
      return { items: [presentPersonEvent(r.personEvent)], message: r.message };
    },
  }),
];
