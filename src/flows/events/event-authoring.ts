import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { UnitOfWork, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { OUTBOUND_EVENTS, type OutboundEventType } from '../../platform/outbound/outbound-events';
import { AuditTrail } from '../../platform/audit';
import { TenantClock } from '../../platform/time/tenant-clock';
import type { CustomAttributeDefinition } from '../../platform/config-items/config-item-registry';
import {
  EventWrites,
  EventsRepository,
  eventCustomAttributes,
  type EventColumns,
  type EventCreateData,
  type EventRow,
  type EventUpdateData,
} from '../../courses';
import { EventChecks } from './event-checks';
import { EventListingFlow } from './event-listing';
import { promoteFromWaitlist } from '../sign-on/waitlist-promotion';
import { CourseCalendar } from '../calendar/calendar-invites';
import { CalendarRepository } from '../../courses';

/**
 * Writes the calendar's webhook event (the event's simple view, read in the transaction after the
 * change, only when an endpoint wants it) and its audit entry (subject: the event id).
 */
export async function recordEventChange(
  tx: Transaction,
  user: Principal,
  type: OutboundEventType & `event.${string}`,
  eventId: number,
  details: Record<string, unknown>,
  audit: string = type,
): Promise<void> {
  if (type !== 'event.deleted') {
    await tx.get(OUTBOUND_EVENTS).record(type, async () => ({
      ...(await tx.get(EventListingFlow).one(eventId, { view: 'simple' }))[0],
      ...(type === 'event.cancelled' ? { reason: details.reason ?? null } : {}),
    }));
  }
  await tx.get(AuditTrail).record({ type: audit, actor: user.userName, subject: String(eventId), details });
}

/**
 * POST /api/events and PUT /api/events/[event_id]: courses' event written after its references are
 * checked where they live (the catalogue's competences, people's instructor and organisation,
 * courses' location and parent event: EventChecks), with its webhook event and audit entry in the
 * same transaction. Raising max_participants gives the new seats to the wait list (the sign-off's
 * promotion, with its notice).
 */
@injectable()
export class EventAuthoringFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TenantClock) private readonly clock: TenantClock,
  ) {}

  private get definitions(): CustomAttributeDefinition[] {
    return this.tenant.config.get('custom_attributes');
  }

  /** The columns event_data sets (references checked), and the names of the fields given. */
  private async columns(checks: EventChecks, d: EventUpdateData, current?: EventRow): Promise<EventColumns> {
    const c: EventColumns = {};
    if (d.title !== undefined) c.title = d.title;
    if (d.description !== undefined) c.description = d.description;
    if (d.startdate !== undefined) c.starts_at = this.clock.at(d.startdate);
    if (d.enddate !== undefined) c.ends_at = this.clock.at(d.enddate);
    if (d.signon_opens !== undefined) c.signon_opens = d.signon_opens === null ? null : this.clock.at(d.signon_opens);
    if (d.signon_closes !== undefined) c.signon_closes = d.signon_closes === null ? null : this.clock.at(d.signon_closes);
    if (d.location_id !== undefined) c.location_id = d.location_id;
    if (d.max_participants !== undefined) c.max_participants = d.max_participants;
    if (d.min_age !== undefined) c.min_age = d.min_age;
    if (d.instructor_user_name !== undefined) c.instructor_id = d.instructor_user_name === null ? null : await checks.instructor(d.instructor_user_name);
    if (d.host_organisation_id !== undefined)
      c.host_organisation_id = d.host_organisation_id === null ? null : await checks.hostOrganisation(d.host_organisation_id);
    if (d.custom_attributes !== undefined) c.custom_attributes = eventCustomAttributes(this.definitions, d.custom_attributes, current?.custom_attributes ?? {});
    const opens = c.signon_opens !== undefined ? c.signon_opens : (current?.signon_opens ?? null);
    const closes = c.signon_closes !== undefined ? c.signon_closes : (current?.signon_closes ?? null);
    if (opens && closes && closes <= opens) throw ApiError.malformed('event_data[signon_closes]', 'must be after signon_opens');
    return c;
  }

  async create(user: Principal, d: EventCreateData): Promise<number> {
    return this.uow.run(async (tx) => {
      const checks = tx.get(EventChecks);
      const parent = d.parent_id ? await checks.parent(d.parent_id) : null;
      const competence = await checks.competence(d.competence_id, parent);
      const c = await this.columns(checks, d);
      const prerequisites = d.prerequisite_competence_ids ? await checks.prerequisites(d.prerequisite_competence_ids) : [];
      const row = {
        ...c,
        competence_id: competence.id,
        parent_id: parent?.id ?? null,
        title: c.title ?? competence.title,
        starts_at: c.starts_at!,
        ends_at: c.ends_at!,
      };
      await checks.placement({
        parent,
        starts_at: row.starts_at,
        ends_at: row.ends_at,
        location_id: row.location_id ?? null,
        max_participants: row.max_participants ?? null,
      });
      const id = await tx.get(EventWrites).insert(row);
      if (prerequisites.length) await tx.get(EventWrites).setPrerequisites(id, prerequisites);
      await recordEventChange(tx, user, 'event.created', id, { fields: Object.keys(d) });
      return id;
    });
  }

  /** Changes the fields given; returns the message (what moved up from the wait list). */
  async update(user: Principal, eventId: number, d: EventUpdateData): Promise<string> {
    return this.uow.run(async (tx) => {
      // the row lock: sign-ons and sign-offs of the event wait for the change, so the seat count holds
      const event = await tx.get(EventsRepository).findForUpdate(eventId);
      if (!event) throw ApiError.notFound(`event ${eventId}`);
      if (d.competence_id !== undefined && d.competence_id !== event.competence_id) {
        throw ApiError.malformed('event_data[competence_id]', 'cannot be changed; create a new event for another competence');
      }
      if (d.parent_id !== undefined && (d.parent_id ?? null) !== event.parent_id)
        throw ApiError.malformed('event_data[parent_id]', 'cannot be changed; create a new event');
      const checks = tx.get(EventChecks);
      const c = await this.columns(checks, d, event);
      const next = { ...event, ...c };
      const placed = ['startdate', 'enddate', 'location_id', 'max_participants'].some((k) => k in d);
      if (placed) {
        const parent = event.parent_id === null ? null : ((await tx.get(EventsRepository).find(event.parent_id)) ?? null);
        await checks.placement({
          id: event.id,
          parent,
          starts_at: next.starts_at,
          ends_at: next.ends_at,
          location_id: next.location_id,
          max_participants: next.max_participants,
        });
      }
      if (c.max_participants !== undefined && c.max_participants !== null) {
        const taken = await tx.get(EventWrites).seatsTaken(event.id);
        if (c.max_participants < taken) {
          throw new ApiError(409, `event ${event.id} has ${taken} person(s) signed on; max_participants cannot go below that (sign persons off first)`);
        }
      }
      const writes = tx.get(EventWrites);
      if (Object.keys(c).length) await writes.update(event.id, c);
      if (d.prerequisite_competence_ids !== undefined) await writes.setPrerequisites(event.id, await checks.prerequisites(d.prerequisite_competence_ids));
      // a new time or place: SEQUENCE up and an update of the invite to every seat (issue 39)
      const moved =
        (c.starts_at !== undefined && c.starts_at.getTime() !== event.starts_at.getTime()) ||
        (c.ends_at !== undefined && c.ends_at.getTime() !== event.ends_at.getTime()) ||
        (c.location_id !== undefined && c.location_id !== event.location_id);
      if (moved) {
        await tx.get(CalendarRepository).bumpSequence(event.id);
        if (!event.cancelled) await (await CourseCalendar.of(tx, event.id))?.updateSeats();
      }
      const raised =
        c.max_participants !== undefined && event.max_participants !== null && (c.max_participants === null || c.max_participants > event.max_participants);
      const promoted = raised ? await promoteFromWaitlist(tx, next) : [];
      const fields = Object.keys(d);
      if (fields.length) await recordEventChange(tx, user, 'event.updated', event.id, { fields });
      const tail = promoted.length ? `; ${promoted.length} person(s) moved from the wait list to a seat` : '';
      return fields.length ? `event updated${tail}` : 'nothing to change: no event_data fields given';
    });
  }
}
