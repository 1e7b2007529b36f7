import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import { DateTime } from 'luxon';
import { tzlib_get_ical_block } from 'timezones-ical-library';

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
  /** The tenant's IANA time zone (tenant.timezone): DTSTART/DTEND carry its TZID and a VTIMEZONE is added; UTC or none: UTC times. */
  timeZone?: string | null;
}

/**
 * The VTIMEZONE of an IANA zone (timezones-ical-library: the IANA rules as iCalendar, kept up to
 * date by its maintainers), written under the zone's own name: the library answers a zone that
 * shares another's rules since 1970 (Europe/Oslo) with that one's block (Europe/Berlin), so its
 * TZID and X-LIC-LOCATION are renamed to agree with the events' TZID. Null for UTC, or a zone the
 * library does not know (the times are then written in UTC).
 */
export function vtimezoneOf(zone: string | null | undefined): { tzid: string; block: string } | null {
  if (!zone || zone === 'UTC' || zone === 'Etc/UTC') return null;
  const found = tzlib_get_ical_block(zone);
  if (!Array.isArray(found) || typeof found[0] !== 'string' || !found[0].startsWith('BEGIN:VTIMEZONE')) return null;
  return { tzid: zone, block: found[0].replace(/^TZID:.*$/m, `TZID:${zone}`).replace(/^X-LIC-LOCATION:.*$/m, `X-LIC-LOCATION:${zone}`) };
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
 * DTEND in the tenant's time zone (TZID, with its VTIMEZONE; UTC when the tenant has none), SEQUENCE from the event, LOCATION, ORGANIZER and the person as ATTENDEE. With method
 * CANCEL every VEVENT is STATUS:CANCELLED (RFC 5546 3.2.5); with REQUEST or in a feed, a cancelled
 * entry is left out.
 */
export function calendarText(doc: CalendarDocument): string {
  const zone = vtimezoneOf(doc.timeZone);
  const cal = ical({ prodId: { company: 'competence-platform', product: 'calendar', language: 'EN' }, name: doc.name ?? null, timezone: null });
  // ical-generator writes the VTIMEZONE the generator gives; the times are luxon DateTimes in the zone (a JS Date would use the process's zone)
  if (zone) cal.timezone({ name: null, generator: () => zone.block });
  const at = (d: Date) => (zone ? DateTime.fromJSDate(new Date(d)).setZone(zone.tzid) : d);
  if (doc.method) cal.method(doc.method === 'CANCEL' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST);
  const cancel = doc.method === 'CANCEL';
  for (const e of doc.entries) {
    if (e.cancelled && !cancel) continue;
    cal.createEvent({
      id: calendarUid(e.id, doc.personId, doc.host),
      sequence: e.sequence,
      start: at(e.starts_at),
      end: at(e.ends_at),
      timezone: zone?.tzid ?? null,
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
