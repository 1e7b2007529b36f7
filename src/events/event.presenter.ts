import type { EventRow, SeatCounts } from './events.repository';

export interface EventExtras {
  counts: Map<number, SeatCounts>;
  prerequisites: Map<number, number[]>;
  children: Map<number, EventRow[]>;
  /** Present with user_check: the checked person's live status per event. */
  userStatus?: Map<number, string>;
}

/** Free seats; null when the event has no seat limit. */
export function freePlaces(row: Pick<EventRow, 'max_participants'>, counts: SeatCounts | undefined): number | null {
  if (row.max_participants === null || row.max_participants === undefined) return null;
  return Math.max(0, row.max_participants - (counts?.signed_on ?? 0));
}

export function presentEvent(row: EventRow, view: 'simple' | 'full', x: EventExtras): Record<string, unknown> {
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
