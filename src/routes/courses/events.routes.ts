import { z } from 'zod';
import { COSTS, defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, viewShape } from '../../platform/http/param-types';
import { EventsService, EventView, customAttributeFilters, eventFilterShape, presentJoinCheck } from '../../courses';
import { findCompetence } from '../../catalogue';
import { TENANT_DB } from '../../platform/tokens';
import { ApiError } from '../../platform/errors/api-error';
import { policies } from '../../people';
import { cachedRead } from '../../platform/cache/cached-read';
import { EventListingFlow } from '../../flows/events/event-listing';
import { SignOnFlow } from '../../flows/sign-on/sign-on';

const listInput = z.looseObject({
  ...eventFilterShape,
  ...pagingShape,
  ...viewShape,
  user_check: p.bool().optional(),
  user_name: p.string(200).min(1).optional(),
});

export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/events',
    cost: COSTS.fullViewList,
    access: policies.when('with user_check=1', (i) => !!i.user_check, policies.selfOrManager('user_name', 'check the sign-ons of this person')),
    resource: 'events',
    summary: 'Course events (module events nested in children)',
    description:
      'Filters: see the spec; custom_attributes.<name>=<value> (the name must be defined for events in the custom_attributes config item). ' +
      "Lists hold course events only; module events appear only in their course's children. " +
      'mode: future (default) = starts now or later, finished = ended, notfinished = not ended yet, all; startdate/enddate override mode. ' +
      'cancelled=1 includes cancelled events (left out by default). location_id is ignored (with a note in message) unless startdate and enddate are given. ' +
      'user_check=1 adds signed_on and user_status for the caller or user_name (superuser, manager, self). ' +
      'organisation_ids: events with a live participant (signed on or wait list) in those organisations (recursive=1: and below). ' +
      'context_organisation_ids / context_extern_organisation_ids: events hosted by nobody, or by that organisation or one above it. ' +
      "host_organisation_external_ids and context_extern_organisation_ids match extern_organisation_id; external_competence_group_ids the group's external_id. " +
      "Date-only startdate/enddate are days of the tenant's time zone (config item tenant.timezone). Sorted by start.",
    input: listInput,
    output: EventView,
    async handler(ctx, input) {
      const filters = { ...input, custom_attributes: customAttributeFilters(ctx.tenant, input) };
      const load = () =>
        ctx.resolve(EventListingFlow).list(filters, paging(input), {
          view: input.view ?? 'simple',
          userCheck: ctx.target && { personId: ctx.target.id },
        });
      // Upcoming events from the first page, oldest first, change by themselves only when the first
      // one starts: cached until then (src/platform/cache/README.md); other modes are read each time.
      const upcoming =
        (input.mode ?? 'future') === 'future' && !input.startdate && !input.enddate && (input.sort_direction ?? 'asc') === 'asc' && paging(input).offset === 0;
      const items = upcoming
        ? await cachedRead(ctx, 'GET /events', input, load, (rows) => (rows.length ? new Date(rows[0].startdate as string | Date).getTime() : Infinity))
        : await load();
      const ignored = input.location_id && !(input.startdate && input.enddate);
      return { items, message: ignored ? 'location_id ignored: it is only honoured together with startdate and enddate' : undefined };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/competences/:competence_id/events',
    cost: COSTS.fullViewList,
    access: policies.when('with user_check=1', (i) => !!i.user_check, policies.selfOrManager('user_name', 'check the sign-ons of this person')),
    resource: 'events',
    summary: 'Events of a competence; same as GET /api/events with competence_id',
    description: '404 for an unknown competence; otherwise filters and answer as GET /api/events.',
    output: EventView,
    input: z.looseObject({
      ...eventFilterShape,
      ...pagingShape,
      ...viewShape,
      competence_id: p.id(),
      user_check: p.bool().optional(),
      user_name: p.string(200).min(1).optional(),
    }),
    async handler(ctx, input) {
      const competence = await findCompetence(ctx.resolve(TENANT_DB), input.competence_id);
      if (!competence) throw ApiError.notFound(`competence ${input.competence_id}`);
      const filters = { ...input, custom_attributes: customAttributeFilters(ctx.tenant, input) };
      const items = await ctx.resolve(EventListingFlow).list(filters, paging(input), {
        view: input.view ?? 'simple',
        userCheck: ctx.target && { personId: ctx.target.id },
      });
      return { items };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/events/:event_id',
    access: policies.when('with user_check=1', (i) => !!i.user_check, policies.selfOrManager('user_name', 'check the sign-ons of this person')),
    resource: 'events',
    summary: 'One event (full view by default)',
    description: "Also answers for a module event's id (a module event has no children).",
    output: EventView,
    input: z.object({ event_id: p.id(), ...viewShape, user_check: p.bool().optional(), user_name: p.string(200).min(1).optional() }),
    async handler(ctx, input) {
      const items = await ctx.resolve(EventListingFlow).one(input.event_id, {
        view: input.view ?? 'full',
        userCheck: ctx.target && { personId: ctx.target.id },
      });
      return { items };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/events/:event_id/check_join',
    access: policies.selfOrManager('user_name', 'check sign-on for this person'),
    resource: 'check_join',
    summary: 'Whether a person may sign on, with a reason and a text per unmet criterion',
    description:
      'Answers the envelope itself (no check_join array): can_join (boolean), places (free seats, null = no limit), reason (list) and one text attribute per reason. ' +
      'Reasons: cancelled, locked, signon_period (our addition: before signon_opens, after signon_closes or once the event started), prerequisites (each held: current, passed > 0, not expired), age ' +
      '(age on the day of the check; no birthdate = not blocked), required_fields (signon.require_email / signon.require_mobile), ' +
      'conflicting_course (signon.block_overlapping: another non-cancelled event the person is signed on to overlaps; the wait list does not block, nor do modules of the same course), ' +
      "already_joined (signed on or on the wait list), event_full (the only one that keeps can_join true). Security: superuser, the person's manager, self.",
    input: z.object({ event_id: p.id(), user_name: p.string(200).min(1).optional() }),
    async handler(ctx, input) {
      const event = await ctx.resolve(EventsService).get(input.event_id);
      const result = await ctx.resolve(SignOnFlow).check(event, ctx.target);
      return { body: { valid: true, message: result.can_join ? 'can join' : 'cannot join', ...presentJoinCheck(result) } };
    },
  }),
];
