import { ageOn } from '../../platform/time/tenant-clock';
import { heldOn } from '../../catalogue/personcompetences/personcompetences.repository';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { TenantConfig } from '../../platform/config-items/tenant-config';
import type { EventRow } from './events.repository';
import type { PersonRow } from '../personevents/target-person';

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

/**
 * check_join: every unmet criterion with a text. event_full leaves can_join true (the
 * person goes onto the wait list). Runs on the given db so sign-on can use its transaction
 * after locking the event row.
 */
export async function checkJoin(db: TenantDb, event: EventRow, person: PersonRow, config: TenantConfig, clock: JoinClock): Promise<JoinCheck> {
  const now = clock.now();
  const today = clock.today();
  const texts: Partial<Record<JoinReason, string>> = {};
  if (event.cancelled) texts.cancelled = `The event "${event.title}" is cancelled.`;
  if (event.locked) texts.locked = `The event "${event.title}" is locked; sign-ons cannot change.`;

  if (event.signon_opens && now < event.signon_opens) texts.signon_period = `Sign-on opens ${event.signon_opens.toISOString()}.`;
  else if (event.signon_closes && now > event.signon_closes) texts.signon_period = `Sign-on closed ${event.signon_closes.toISOString()}.`;
  else if (now >= event.starts_at) texts.signon_period = `The event started ${event.starts_at.toISOString()}; sign-on is over.`;

  const missing: { id: number; title: string }[] = await db
    .table('event_prerequisites as ep')
    .join('competences as c', 'c.id', 'ep.competence_id')
    .where('ep.event_id', event.id)
    .whereNotExists(
      // held, as everywhere: a failed attempt (passed 0) is registered but does not qualify
      heldOn(db.table('person_competences as pc').whereRaw('pc.competence_id = ep.competence_id').where('pc.person_id', person.id), today),
    )
    .orderBy('c.title')
    .select('c.id', 'c.title');
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
    const clash = await db
      .table('person_events as pe')
      .join('events as e', 'e.id', 'pe.event_id')
      .where('pe.person_id', person.id)
      .where('pe.status', 'signed_on')
      .where('e.cancelled', false)
      .whereNot('e.id', event.id)
      // Modules of the same course overlap their parent by design.
      .where((w) => w.whereNull('e.parent_id').orWhereNot('e.parent_id', event.id))
      .where('e.starts_at', '<', event.ends_at)
      .where('e.ends_at', '>', event.starts_at)
      .orderBy('e.starts_at')
      .first('e.title', 'e.starts_at');
    if (clash) texts.conflicting_course = `Overlaps "${clash.title}" (${clash.starts_at.toISOString()}), which ${person.user_name} is already signed on to.`;
  }

  const live = await db.table('person_events').where({ person_id: person.id, event_id: event.id }).whereNot('status', 'signed_off').first('status');
  if (live) texts.already_joined = live.status === 'waitlist' ? `${person.user_name} is already on the wait list.` : `${person.user_name} is already signed on.`;

  let places: number | null = null;
  if (event.max_participants !== null) {
    const [{ count }] = await db.table('person_events').where({ event_id: event.id, status: 'signed_on' }).count<{ count: string }[]>('* as count');
    places = Math.max(0, event.max_participants - Number(count));
    if (places === 0) texts.event_full = 'No free seats: sign-on puts the person on the wait list.';
  }

  const reason = JOIN_REASONS.filter((r) => texts[r] !== undefined);
  return { can_join: reason.every((r) => r === 'event_full'), places, reason, texts };
}

/** The check_join dictionary of the spec: can_join, places, reason and one text attribute per reason. */
export function presentJoinCheck(c: JoinCheck): Record<string, unknown> {
  return { can_join: c.can_join, places: c.places, reason: c.reason, ...c.texts };
}
