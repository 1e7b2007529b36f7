import type { AccessRule } from '../../platform/http/access';
import { ApiError } from '../../platform/errors/api-error';
import { EventsRepository, type EventRow } from '../../courses';
import { CompetenceAuthoring } from '../catalogue/competence-authoring-access';

/*
 * Who may author the calendar (issue 35, item 5): superusers and superadmins everything; the owner
 * of a competence (or of the competence it belongs to: CompetenceAuthoring.mayAuthor, the
 * catalogue's own rule) creates, edits, cancels, locks and deletes its events, so a course's owner
 * also authors its module events; the instructor of an event (events.instructor_id) edits and
 * locks that event. Everyone else 403.
 */

const OWNER = "the owner of the event's competence (or of the competence it belongs to)";
const SUPER = 'superuser, superadmin';

/**
 * A rule on the event named by `event_id` (404 when missing, another tenant's too): superusers,
 * superadmins, the competence's owner, and with `instructor` the event's instructor. The event
 * (as read) is the handler's ctx.target.
 */
export function eventAuthor(action: string, instructor: boolean): AccessRule<EventRow> {
  return {
    security: `${SUPER}, ${OWNER}${instructor ? ", the event's instructor (events.instructor_id)" : ''}`,
    login: true,
    async check(ctx, input: { event_id: number }) {
      const event = await ctx.resolve(EventsRepository).find(input.event_id);
      if (!event) throw ApiError.notFound(`event ${input.event_id}`);
      if (instructor && event.instructor_id === ctx.user.personId) return event;
      if (await ctx.resolve(CompetenceAuthoring).mayAuthor(ctx.user, event.competence_id)) return event;
      const who = instructor ? 'the owner of its competence, its instructor' : 'the owner of its competence';
      throw ApiError.forbidden(`not authorised to ${action}: only ${who}, a superuser or a superadmin may`);
    },
  };
}

/**
 * POST /api/events: superusers, superadmins and the owner of event_data[competence_id] (a module's
 * owner or its course's). Whether the competence exists and suits an event is the handler's (420);
 * a competence that does not exist is owned by nobody (403 for others).
 */
export function eventCreator(action: string): AccessRule<undefined> {
  return {
    security: `${SUPER}, the owner of the competence event_data[competence_id] (or of the competence it belongs to)`,
    login: true,
    async check(ctx, input: { event_data: { competence_id: number } }) {
      if (await ctx.resolve(CompetenceAuthoring).mayAuthor(ctx.user, input.event_data.competence_id)) return undefined;
      throw ApiError.forbidden(`not authorised to ${action}: only the owner of the competence, a superuser or a superadmin may`);
    },
  };
}
