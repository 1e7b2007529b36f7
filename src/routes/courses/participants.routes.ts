import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, viewShape } from '../../platform/http/param-types';
import { EventsService } from '../../courses';
import { personStateParam, policies } from '../../people';
import { ParticipantView, ParticipantsFlow } from '../../flows/participants/participants';

const listInput = z.object({
  event_id: p.id(),
  waitlist: p.bool().optional(),
  passed: p.bool().optional(),
  met: p.bool().optional(),
  organisation_id: p.id().optional(),
  recursive: p.bool().optional(),
  state: personStateParam,
  ...pagingShape,
  ...viewShape,
});

const list = (resource: string, path: string, summary: string) =>
  defineRoute({
    method: 'get',
    path,
    access: policies.userThen("a superuser or the event's instructor: everyone; a manager: the persons in organisations they manage"),
    resource,
    summary,
    description:
      'A superuser or the event\'s instructor sees all participants; a manager only persons in organisations they manage (with organisation_id they must manage it); ' +
      'anyone else 403. waitlist, passed and met filter when given (unset returns both). Sorted: seats first, then by sign-on time. ' +
      "met: the person holds the event's competence now (current registration, passed > 0, still valid in the tenant's time zone). " +
      'state: active (default) leaves deactivated persons out (their places in events not started yet were ended; those in earlier events stay), deactivated lists only them, all both.',
    input: listInput,
    output: ParticipantView,
    async handler(ctx, input) {
      const event = await ctx.resolve(EventsService).get(input.event_id);
      return { items: await ctx.resolve(ParticipantsFlow).list(ctx.user, event, input, paging(input)) };
    },
  });

export const participantRoutes = [
  list('participants', '/participants/:event_id', 'Persons signed on to an event (seat or wait list)'),
  list('participants', '/events/:event_id/participants', 'Same as GET /api/participants/[event_id]'),
  defineRoute({
    method: 'get',
    path: '/participants/:event_id/:user_name',
    access: policies.userThen("superuser, the person's manager, self, the event's instructor"),
    resource: 'participants',
    summary: 'One participant of an event',
    description: 'Superuser, the person\'s manager, self and the event\'s instructor; 404 when the person has no live sign-on to the event.',
    output: ParticipantView,
    input: z.object({ event_id: p.id(), user_name: p.string(200).min(1), ...viewShape }),
    async handler(ctx, input) {
      const event = await ctx.resolve(EventsService).get(input.event_id);
      return { items: [await ctx.resolve(ParticipantsFlow).one(ctx.user, event, input.user_name)] };
    },
  }),
];
