import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';

/** One date of a course: the course event itself or one of its module events. */
export interface CalendarEntry {
  id: number;
  title: string;
  description: string | null;
  starts_at: Date;
  ends_at: Date;
  /** The location's name and address, joined; null when the event has none. */
  location: string | null;
  /** events.calendar_sequence: raised on every change of start, end or location. */
  sequence: number;
  cancelled: boolean;
}

export type CalendarMethod = 'REQUEST' | 'CANCEL';

export interface CalendarParty {
  name: string | null;
  email: string;
}

export interface CalendarDocument {
  /** REQUEST (an invite or its update), CANCEL, or null for a subscribed feed (no iTIP method). */
  method: CalendarMethod | null;
  /** The tenant's first host name: the right-hand side of every UID. */
  host: string;
  tenantName: string;
  personId: number;
  /** The tenant's mail.from; null leaves ORGANIZER out. */
  organizer: CalendarParty | null;
  /** The person; null leaves ATTENDEE out (a feed of someone without e-mail). */
  attendee: CalendarParty | null;
  entries: CalendarEntry[];
  /** The feed's display name (X-WR-CALNAME). */
  name?: string;
}

/** The stable UID of one event in one person's calendar: the same in every invite, update, cancel and in the feed. */
export const calendarUid = (eventId: number, personId: number, host: string) => `event-${eventId}-person-${personId}@${host}`;

/** `"Name" <a@b>` or `a@b` (a config item mail.from) as a calendar party; null when there is no address. */
export function calendarParty(from: string | null | undefined): CalendarParty | null {
  if (!from) return null;
  const m = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(from);
  if (m) return { name: m[1].trim() || null, email: m[2].trim() };
  return from.includes('@') ? { name: null, email: from.trim() } : null;
}

/**
 * An RFC 5545 calendar (ical-generator): one VEVENT per entry, UID per (event, person), DTSTART and
 * DTEND in UTC, SEQUENCE from the event, LOCATION, ORGANIZER and the person as ATTENDEE. With method
 * CANCEL every VEVENT is STATUS:CANCELLED (RFC 5546 3.2.5); with REQUEST or in a feed, a cancelled
 * entry is left out.
 */
export function calendarText(doc: CalendarDocument): string {
  const cal = ical({ prodId: { company: 'competence-platform', product: 'calendar', language: 'EN' }, name: doc.name ?? null, timezone: null });
  if (doc.method) cal.method(doc.method === 'CANCEL' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST);
  const cancel = doc.method === 'CANCEL';
  for (const e of doc.entries) {
    if (e.cancelled && !cancel) continue;
    cal.createEvent({
      id: calendarUid(e.id, doc.personId, doc.host),
      sequence: e.sequence,
      start: e.starts_at,
      end: e.ends_at,
      summary: e.title,
      description: e.description ?? null,
      location: e.location ?? null,
      organizer: doc.organizer ? { name: doc.organizer.name ?? doc.tenantName, email: doc.organizer.email } : null,
      attendees: doc.attendee
        ? [{ name: doc.attendee.name, email: doc.attendee.email, role: ICalAttendeeRole.REQ, status: ICalAttendeeStatus.ACCEPTED, rsvp: false }]
        : [],
      status: cancel ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    });
  }
  return cal.toString();
}
