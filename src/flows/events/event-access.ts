import type { AccessCheck, AccessRule } from '../../platform/http/access';
import { ApiError } from '../../platform/errors/api-error';
import { EventsRepository, type EventRow } from '../../courses';
import { CompetencesRepository } from '../../catalogue';
import { PersonAccess } from '../../people';

/*
 * Who may author the calendar (issue 35, item 5): superusers and superadmins everything; the owner
 * of a competence (competences.owner_id) creates, edits, cancels, locks and deletes its events; the
 * instructor of an event (events.instructor_id) edits and locks that event. A module event's
 * competence is a module: the owner of the course's competence (its parent event's) counts too.
 * Everyone else 403. (The catalogue helper, branch i35-cat, may add a reusable "may author this
 * competence" check; the two are to be folded at merge.)
 */

const OWNER = "the owner of the event's competence (or of its course's)";
const SUPER = 'superuser, superadmin';

/** The caller owns one of these competences. */
async function ownsOne(ctx: AccessCheck, competenceIds: readonly number[]): Promise<boolean> {
  const ids = competenceIds.filter((id) => Number.isInteger(id));
  if (!ids.length) return false;
  const rows = await ctx.resolve(CompetencesRepository).byIds([...new Set(ids)]);
  return rows.some((c) => c.owner_id === ctx.user.personId);
}

const isSuperadmin = (ctx: AccessCheck) => ctx.resolve(PersonAccess).isSuperadmin(ctx.user);

/** The event `event_id` names (404 when missing, another tenant's too), with the competences whose owners may author it. */
async function eventOf(ctx: AccessCheck, id: number): Promise<{ event: EventRow; competences: number[] }> {
  const events = ctx.resolve(EventsRepository);
  const event = await events.find(id);
  if (!event) throw ApiError.notFound(`event ${id}`);
  const parent = event.parent_id === null ? undefined : await events.find(event.parent_id);
  return { event, competences: parent ? [event.competence_id, parent.competence_id] : [event.competence_id] };
}

/**
 * A rule on the event named by `event_id`: superusers, superadmins, the competence's owner, and with
 * `instructor` the event's instructor. The event (as read) is the handler's ctx.target.
 */
export function eventAuthor(action: string, instructor: boolean): AccessRule<EventRow> {
  return {
    security: `${SUPER}, ${OWNER}${instructor ? ", the event's instructor (events.instructor_id)" : ''}`,
    login: true,
    async check(ctx, input: { event_id: number }) {
      const { event, competences } = await eventOf(ctx, input.event_id);
      if (ctx.user.superuser) return event;
      if (instructor && event.instructor_id === ctx.user.personId) return event;
      if ((await ownsOne(ctx, competences)) || (await isSuperadmin(ctx))) return event;
      const who = instructor ? "the owner of its competence, its instructor" : 'the owner of its competence';
      throw ApiError.forbidden(`not authorised to ${action}: only ${who}, a superuser or a superadmin may`);
    },
  };
}

/**
 * POST /api/events: superusers, superadmins and the owner of event_data[competence_id] (or, for a
 * module event, of its parent event's competence). Whether the competence exists and suits an event
 * is the handler's (420); a competence that does not exist is owned by nobody (403 for others).
 */
export function competenceAuthor(action: string): AccessRule<undefined> {
  return {
    security: `${SUPER}, the owner of the competence event_data[competence_id] (for a module event also the owner of its parent event's competence)`,
    login: true,
    async check(ctx, input: { event_data: { competence_id: number; parent_id?: number | null } }) {
      if (ctx.user.superuser) return undefined;
      const competences = [input.event_data.competence_id];
      const parentId = input.event_data.parent_id;
      if (parentId) {
        const parent = await ctx.resolve(EventsRepository).find(parentId);
        if (parent) competences.push(parent.competence_id);
      }
      if ((await ownsOne(ctx, competences)) || (await isSuperadmin(ctx))) return undefined;
      throw ApiError.forbidden(`not authorised to ${action}: only the owner of the competence, a superuser or a superadmin may`);
    },
  };
}
