import { z } from 'zod';
import type { ViewName } from '../../platform/http/param-types';
import type { EventRow, SeatCounts } from './events.repository';

/** Timestamps leave the API as Date.toJSON() strings. */
export const isoDateTime = () => z.string().describe('ISO 8601 date-time');

/** Attributes of every event, simple view (module events in `children` have only these). */
const simpleShape = {
  event_id: z.number().int(),
  parent_id: z.number().int().nullable().describe('the course event this module event belongs to; null for a course event'),
  title: z.string(),
  competence_id: z.number().int().describe('the competence the event trains'),
  competence_title: z.string(),
  startdate: isoDateTime(),
  enddate: isoDateTime(),
  location_id: z.number().int().nullable(),
  location_name: z.string().nullable(),
  host_organisation_id: z.number().int().nullable().describe('hosting organisation; null = open to every organisation context'),
  max_participants: z.number().int().nullable().describe('seat limit; null = no limit'),
  participants: z.number().int().describe('number of persons signed on (seats taken)'),
  waitlist: z.number().int().describe('number of persons on the wait list'),
  places: z.number().int().nullable().describe('free seats; null when the event has no seat limit'),
  cancelled: z.boolean(),
  locked: z.boolean().describe('sign-ons cannot change any more'),
  custom_attributes: z.record(z.string(), z.unknown()).describe('values of the custom attributes defined for events in the custom_attributes config item'),
};

/** Present only with user_check=1. */
const userCheckShape = {
  user_status: z.enum(['signed_on', 'waitlist']).nullable().optional().describe("user_check=1 only: the checked person's live sign-on; null = not signed on"),
  signed_on: z.boolean().optional().describe('user_check=1 only: the checked person holds a seat'),
};

/** A module event as nested in its course's `children`: always the simple view. */
export const ModuleEventView = z.object({ ...simpleShape, ...userCheckShape });

/** Event, simple view (lists, view=simple); with user_check=1 the checked person's status. */
export const Event = z
  .object({
    ...simpleShape,
    ...userCheckShape,
    children: z.array(ModuleEventView).optional().describe('course events only: their module events (simple view), sorted by start'),
  })
  .describe('Event, simple view (lists by default, view=simple)')
  .meta({ id: 'Event' });

/** Event, full view (one by id, view=full): the simple view and what only the full view shows, always present there. */
export const EventFull = Event.extend({
  description: z.string().nullable(),
  instructor_id: z.number().int().nullable(),
  instructor_user_name: z.string().nullable(),
  signon_opens: isoDateTime().nullable().describe('ISO 8601 date-time; null = no opening limit'),
  signon_closes: isoDateTime().nullable().describe('ISO 8601 date-time; null = until the event starts'),
  min_age: z.number().int().nullable().describe('minimum age in years on the day of sign-on'),
  prerequisites: z.array(z.number().int()).describe('ids of competences a participant must hold'),
  cancel_reason: z.string().nullable().describe('the reason given when it was cancelled'),
  cancelled_at: isoDateTime().nullable().describe('when it was cancelled; null while not cancelled'),
})
  .describe('Event, full view (one by id by default, view=full)')
  .meta({ id: 'EventFull' });

/** An event answer: full or simple, as the call's view asks. */
export const EventView = z.union([EventFull, Event]);

/** An event as its views show it: with its competence's title and its instructor's user name (read by a flow). */
export type DescribedEvent = EventRow & { competence_title: string; instructor_user_name: string | null };

export interface EventExtras {
  counts: Map<number, SeatCounts>;
  prerequisites: Map<number, number[]>;
  children: Map<number, DescribedEvent[]>;
  /** Present with user_check: the checked person's live status per event. */
  userStatus?: Map<number, string>;
}

/** Free seats; null when the event has no seat limit. */
export function freePlaces(row: Pick<EventRow, 'max_participants'>, counts: SeatCounts | undefined): number | null {
  if (row.max_participants === null || row.max_participants === undefined) return null;
  return Math.max(0, row.max_participants - (counts?.signed_on ?? 0));
}

export function presentEvent(row: DescribedEvent, view: ViewName, x: EventExtras): Record<string, unknown> {
  const counts = x.counts.get(row.id) ?? { signed_on: 0, waitlist: 0 };
  const out: Record<string, unknown> = {
    event_id: row.id,
    parent_id: row.parent_id,
    title: row.title,
    competence_id: row.competence_id,
    competence_title: row.competence_title,
    startdate: row.starts_at,
    enddate: row.ends_at,
    location_id: row.location_id,
    location_name: row.location_name,
    host_organisation_id: row.host_organisation_id,
    max_participants: row.max_participants,
    participants: counts.signed_on,
    waitlist: counts.waitlist,
    places: freePlaces(row, counts),
    cancelled: row.cancelled,
    locked: row.locked,
    custom_attributes: row.custom_attributes ?? {},
  };
  if (view === 'full') {
    Object.assign(out, {
      description: row.description,
      instructor_id: row.instructor_id,
      instructor_user_name: row.instructor_user_name,
      signon_opens: row.signon_opens,
      signon_closes: row.signon_closes,
      min_age: row.min_age,
      prerequisites: x.prerequisites.get(row.id) ?? [],
      cancel_reason: row.cancel_reason ?? null,
      cancelled_at: row.cancelled_at ?? null,
    });
  }
  if (x.userStatus) {
    const status = x.userStatus.get(row.id) ?? null;
    out.user_status = status;
    out.signed_on = status === 'signed_on';
  }
  if (row.parent_id === null) out.children = (x.children.get(row.id) ?? []).map((c) => presentEvent(c, 'simple', x));
  return out;
}
