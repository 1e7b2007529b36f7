import { z } from 'zod';
import { defineRoute, type RouteContext } from '../../platform/http/define-route';
import { jsonObject, p, viewShape } from '../../platform/http/param-types';
import { EventCreateData, EventUpdateData, EventView } from '../../courses';
import { EventListingFlow } from '../../flows/events/event-listing';
import { EventAuthoringFlow } from '../../flows/events/event-authoring';
import { EventCancellationFlow } from '../../flows/events/event-cancellation';
import { eventAuthor, eventCreator } from '../../flows/events/event-access';

const DATA =
  "event_data (bracket form event_data[title]=..., a JSON object or JSON text; the read side's names; unknown keys are a 420): competence_id (a course, module or ecourse), " +
  "title (default: the competence's), startdate, enddate (ISO 8601 date-times; without an offset in the tenant's time zone, config item tenant.timezone; end after start), " +
  'location_id, max_participants (empty: no limit), min_age, signon_opens, signon_closes (date-times; closes after opens), instructor_user_name, host_organisation_id, description, ' +
  'prerequisite_competence_ids (replaces the list), custom_attributes (names defined for events in the custom_attributes config item, typed by their definition; null or "" removes one), ' +
  "parent_id (a module event: its competence must be a module of the parent event's competence, and it must lie inside the parent's dates; a module competence needs a parent event). " +
  "A location with fewer seats than max_participants, or hosting another event that is not cancelled at an overlapping time (the event's own course and modules excepted), is a 420 on event_data[location_id] naming the clash. " +
  'A reference that does not exist (competence, location, parent event, instructor, organisation) is a 420 naming it.';

/** The event as GET /api/events/[id] shows it (full view by default). */
const shown = (ctx: RouteContext, id: number, view?: 'simple' | 'full') => ctx.resolve(EventListingFlow).one(id, { view: view ?? 'full' });

const eventId = { event_id: p.id() };

export const eventAuthoringRoutes = [
  defineRoute({
    method: 'post',
    path: '/events',
    access: eventCreator('create events of this competence'),
    resource: 'events',
    summary: 'Create an event (a module event with parent_id)',
    description: `${DATA} Answers the new event as GET /api/events/[event_id] does (full view by default), message "event created". Webhook event.created, audit entry event.created.`,
    input: z.object({ event_data: z.preprocess(jsonObject, EventCreateData), ...viewShape }),
    output: EventView,
    async handler(ctx, input) {
      const id = await ctx.resolve(EventAuthoringFlow).create(ctx.user, input.event_data);
      return { message: 'event created', items: await shown(ctx, id, input.view) };
    },
  }),
  defineRoute({
    method: 'put',
    idempotencyKey: true,
    path: '/events/:event_id',
    access: eventAuthor('change this event', true),
    resource: 'events',
    summary: 'Change an event: only the event_data fields given',
    description:
      `${DATA} competence_id and parent_id cannot change (420; create a new event). ` +
      'Lowering max_participants below the persons signed on is a 409; raising it (or emptying it: no limit) gives the new seats to the wait list, longest waiting first, each with the notice a sign-off sends. ' +
      'Moving a course event so that one of its module events would lie outside it is a 420 naming that module event. Answers the event (full view by default). Webhook event.updated, audit entry event.updated.',
    input: z.object({ ...eventId, event_data: z.preprocess(jsonObject, EventUpdateData), ...viewShape }),
    output: EventView,
    async handler(ctx, input) {
      const message = await ctx.resolve(EventAuthoringFlow).update(ctx.user, ctx.target.id, input.event_data);
      return { message, items: await shown(ctx, ctx.target.id, input.view) };
    },
  }),
  defineRoute({
    method: 'put',
    idempotencyKey: true,
    path: '/events/:event_id/cancel',
    access: eventAuthor('cancel this event', false),
    resource: 'events',
    summary: 'Cancel an event and its module events; every sign-on and wait-list place ends and each participant and their manager is told',
    description:
      'reason (optional, up to 1000 characters) is stored and quoted in the notices. In one transaction: the event and its module events are marked cancelled (cancel_reason, cancelled_at in the full view), ' +
      'every live place (seat and wait list) is signed off, each participant gets a message (by e-mail, else SMS) and each of their nearest managers (of their organisation, else of the nearest one above it that has a manager) ' +
      "a copy as a message of their own (in the manager's GET /api/messages), all through the outbox; one webhook event.cancelled (the simple view plus reason) and the audit entry event.cancelled. " +
      'check_join then answers the reason cancelled. Cancelling a cancelled event changes nothing (200, "already cancelled"; no notices, no webhook). Cancelling a module event alone ends nobody\'s place (sign-ons are the course\'s).',
    input: z.object({ ...eventId, reason: p.string(1000).optional(), ...viewShape }),
    output: EventView,
    async handler(ctx, input) {
      const r = await ctx.resolve(EventCancellationFlow).cancel(ctx.user, ctx.target.id, input.reason || null);
      return { message: r.message, items: await shown(ctx, ctx.target.id, input.view) };
    },
  }),
  defineRoute({
    method: 'put',
    idempotencyKey: true,
    path: '/events/:event_id/uncancel',
    access: eventAuthor('uncancel this event', false),
    resource: 'events',
    summary: 'Lift a cancellation (409 once the event has started); the places it ended stay ended',
    description:
      'The event and its module events are no longer cancelled. Sign-ons and wait-list places ended by the cancellation are not restored (their holders were told it is cancelled and may have planned otherwise): persons sign on again. ' +
      'A module event of a cancelled course event: 409 (uncancel the course). Not cancelled: 200, nothing changed. Webhook event.updated, audit entry event.uncancelled.',
    input: z.object({ ...eventId, ...viewShape }),
    output: EventView,
    async handler(ctx, input) {
      const message = await ctx.resolve(EventCancellationFlow).uncancel(ctx.user, ctx.target.id);
      return { message, items: await shown(ctx, ctx.target.id, input.view) };
    },
  }),
  ...(['lock', 'unlock'] as const).map((action) =>
    defineRoute({
      method: 'put',
      idempotencyKey: true,
      path: `/events/:event_id/${action}`,
      access: eventAuthor(`${action} this event`, true),
      resource: 'events',
      summary: action === 'lock' ? 'Lock an event: sign-ons and sign-offs are refused (409)' : 'Unlock an event',
      description:
        "A locked event refuses every sign-on (check_join reason locked) and every sign-off but a superuser's (the seed's locked state); the wait list does not move. " +
        `Already ${action}ed: 200, nothing changed. Webhook event.updated, audit entry event.${action}ed.`,
      input: z.object({ ...eventId, ...viewShape }),
      output: EventView,
      async handler(ctx, input) {
        const message = await ctx.resolve(EventCancellationFlow).setLocked(ctx.user, ctx.target.id, action === 'lock');
        return { message, items: await shown(ctx, ctx.target.id, input.view) };
      },
    }),
  ),
  defineRoute({
    method: 'delete',
    idempotencyKey: true,
    path: '/events/:event_id',
    access: eventAuthor('delete this event', false),
    resource: 'events',
    summary: 'Delete an event nobody is or was signed on to (its module events too); else 409, cancel instead',
    description:
      'Any sign-on row of the event or its modules, signed off or on the wait list included, keeps it (409): its history stays, cancel it instead. ' +
      'Answers the event as it was. GET /api/changes?Type=events then lists it with deleted: true; webhook event.deleted ({event_id, competence_id, title, startdate, enddate, deleted: true}), audit entry event.deleted.',
    input: z.object({ ...eventId }),
    output: EventView,
    async handler(ctx) {
      const before = await shown(ctx, ctx.target.id);
      await ctx.resolve(EventCancellationFlow).delete(ctx.user, ctx.target.id);
      return { message: `event ${ctx.target.id} deleted`, items: before };
    },
  }),
];
