import { ageOn } from '../../platform/time/tenant-clock';
import type { TenantConfig } from '../../platform/config-items/tenant-config';
import type { EventRow } from './events.repository';

export const JOIN_REASONS = [
  'cancelled',
  'locked',
  'signon_period',
  'prerequisites',
  'age',
  'required_fields',
  'conflicting_course',
  'already_joined',
  'event_full',
] as const;
export type JoinReason = (typeof JOIN_REASONS)[number];

export interface JoinCheck {
  can_join: boolean;
  /** Free seats; null when the event has no seat limit. */
  places: number | null;
  reason: JoinReason[];
  texts: Partial<Record<JoinReason, string>>;
}

/** What checkJoin needs of the clock: the instant and the tenant's calendar day. */
export interface JoinClock {
  now(): Date;
  today(): string;
}

/** What check_join reads about an event and a person; JoinCheckRepository reads it from the tables. */
export interface JoinFacts {
  /** Prerequisites of the event the person does not hold on `today`, by title. */
  missingPrerequisites(eventId: number, personId: number, today: string): Promise<{ id: number; title: string }[]>;
  /** The earliest other event the person holds a seat on that overlaps this one (modules of this course excepted). */
  clash(personId: number, event: EventRow): Promise<{ title: string; starts_at: Date } | undefined>;
  /** The person's live sign-on status (signed_on or waitlist), if any. */
  liveStatus(personId: number, eventId: number): Promise<string | undefined>;
  /** Seats taken (signed_on). */
  seatsTaken(eventId: number): Promise<number>;
}

/** The person facts check_join reads (columns of the people module's persons, handed in by the caller). */
export interface JoinPerson {
  id: number;
  user_name: string;
  email: string | null;
  mobile: string | null;
  /** YYYY-MM-DD */
  birthdate: string | null;
}

/**
 * check_join: every unmet criterion with a text. event_full leaves can_join true (the
 * person goes onto the wait list). Reads through `facts`, so sign-on can pass the
 * repository of its transaction after locking the event row.
 */
export async function checkJoin(facts: JoinFacts, event: EventRow, person: JoinPerson, config: TenantConfig, clock: JoinClock): Promise<JoinCheck> {
  const now = clock.now();
  const today = clock.today();
  const texts: Partial<Record<JoinReason, string>> = {};
  if (event.cancelled) texts.cancelled = `The event "${event.title}" is cancelled.`;
  if (event.locked) texts.locked = `The event "${event.title}" is locked; sign-ons cannot change.`;

  if (event.signon_opens && now < event.signon_opens) texts.signon_period = `Sign-on opens ${event.signon_opens.toISOString()}.`;
  else if (event.signon_closes && now > event.signon_closes) texts.signon_period = `Sign-on closed ${event.signon_closes.toISOString()}.`;
  else if (now >= event.starts_at) texts.signon_period = `The event started ${event.starts_at.toISOString()}; sign-on is over.`;

  const missing = await facts.missingPrerequisites(event.id, person.id, today);
  if (missing.length) texts.prerequisites = `Requires a valid ${missing.map((m) => `"${m.title}"`).join(', ')} first.`;

  // Age on the tenant's day of sign-on; without a registered birthdate the limit cannot be checked and does not block.
  const age = person.birthdate ? ageOn(person.birthdate, today) : null;
  if (event.min_age !== null && age !== null && age < event.min_age) {
    texts.age = `The event requires an age of at least ${event.min_age}; ${person.user_name} is ${age}.`;
  }

  const fields: string[] = [];
  if (config.get('signon.require_email') && !person.email?.trim()) fields.push('e-mail address');
  if (config.get('signon.require_mobile') && !person.mobile?.trim()) fields.push('mobile number');
  if (fields.length) texts.required_fields = `Sign-on requires ${fields.join(' and ')} on the person; please add it to the profile.`;

  if (config.get('signon.block_overlapping')) {
    const clash = await facts.clash(person.id, event);
    if (clash) texts.conflicting_course = `Overlaps "${clash.title}" (${clash.starts_at.toISOString()}), which ${person.user_name} is already signed on to.`;
  }

  const live = await facts.liveStatus(person.id, event.id);
  if (live) texts.already_joined = live === 'waitlist' ? `${person.user_name} is already on the wait list.` : `${person.user_name} is already signed on.`;

  let places: number | null = null;
  if (event.max_participants !== null) {
    places = Math.max(0, event.max_participants - (await facts.seatsTaken(event.id)));
    if (places === 0) texts.event_full = 'No free seats: sign-on puts the person on the wait list.';
  }

  const reason = JOIN_REASONS.filter((r) => texts[r] !== undefined);
  return { can_join: reason.every((r) => r === 'event_full'), places, reason, texts };
}

/** The check_join dictionary of the spec: can_join, places, reason and one text attribute per reason. */
export function presentJoinCheck(c: JoinCheck): Record<string, unknown> {
  return { can_join: c.can_join, places: c.places, reason: c.reason, ...c.texts };
}
