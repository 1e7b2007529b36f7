import { inject, injectable } from 'tsyringe';
import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';
import { ApiError } from '../../platform/errors/api-error';
import { TenantClock } from '../../platform/time/tenant-clock';
import { EventWrites, EventsRepository, LocationWrites, type EventRow } from '../../courses';
import { CompetencesRepository, type CompetenceRow } from '../../catalogue';
import { OrganisationDirectory, PersonDirectory } from '../../people';

/** The competence types an event may train. */
const EVENT_TYPES = ['course', 'module', 'ecourse'];

const P = (name: string) => `event_data[${name}]`;
const local = (zone: string, d: Date) => format(new TZDate(new Date(d).getTime(), zone), 'yyyy-MM-dd HH:mm');
/** "2026-12-01 09:00–12:00 Europe/Oslo" in the tenant's zone, with both days when it spans more than one. */
export function spanIn(zone: string, from: Date, to: Date): string {
  const [a, b] = [local(zone, from), local(zone, to)];
  return `${a}–${a.slice(0, 10) === b.slice(0, 10) ? b.slice(11) : b} ${zone}`;
}

/** What an event's place in time and space must satisfy. */
export interface Placement {
  /** The event itself (a change) or nothing (a create). */
  id?: number;
  parent: EventRow | null;
  starts_at: Date;
  ends_at: Date;
  location_id: number | null;
  max_participants: number | null;
}

/**
 * The references of event_data, each checked where it points (another module's objects through its
 * face): a 420 naming the parameter when one is missing or unsuitable. Reached through the
 * authoring transaction (`tx.get`), so the location row it locks stays locked until the commit:
 * two bookings of one room at once queue there, and the second sees the first's clash.
 */
@injectable()
export class EventChecks {
  constructor(
    @inject(CompetencesRepository) private readonly competences: CompetencesRepository,
    @inject(EventsRepository) private readonly events: EventsRepository,
    @inject(EventWrites) private readonly writes: EventWrites,
    @inject(LocationWrites) private readonly locations: LocationWrites,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(OrganisationDirectory) private readonly organisations: OrganisationDirectory,
    @inject(TenantClock) private readonly clock: TenantClock,
  ) {}

  private span(from: Date, to: Date): string {
    return spanIn(this.clock.zone, from, to);
  }

  /** A course, module or ecourse competence; a module's event has a parent event of the module's course. */
  async competence(id: number, parent: EventRow | null): Promise<CompetenceRow> {
    const [c] = await this.competences.byIds([id]);
    if (!c) throw ApiError.malformed(P('competence_id'), `no competence ${id} exists`);
    if (!EVENT_TYPES.includes(c.type))
      throw ApiError.malformed(P('competence_id'), `competence ${id} is a ${c.type}; events train a course, module or ecourse`);
    if (c.type === 'module' && !parent) throw ApiError.missing(P('parent_id'));
    if (c.type !== 'module' && parent) throw ApiError.malformed(P('parent_id'), `only a module event has a parent; competence ${id} is a ${c.type}`);
    if (parent && c.parent_id !== parent.competence_id) {
      throw ApiError.malformed(P('competence_id'), `competence ${id} is not a module of competence ${parent.competence_id}, which event ${parent.id} trains`);
    }
    return c;
  }

  /** The course event a module event belongs to. */
  async parent(id: number): Promise<EventRow> {
    const parent = await this.events.find(id);
    if (!parent) throw ApiError.malformed(P('parent_id'), `no event ${id} exists`);
    if (parent.parent_id !== null) throw ApiError.malformed(P('parent_id'), `event ${id} is a module event itself; name its course event ${parent.parent_id}`);
    return parent;
  }

  async instructor(userName: string): Promise<number> {
    const person = await this.persons.find({ user_name: userName }, ['id']);
    if (!person) throw ApiError.malformed(P('instructor_user_name'), `no person ${userName} exists`);
    return person.id;
  }

  async hostOrganisation(id: number): Promise<number> {
    if (!(await this.organisations.find(id))) throw ApiError.malformed(P('host_organisation_id'), `no organisation ${id} exists`);
    return id;
  }

  async prerequisites(ids: readonly number[]): Promise<number[]> {
    const unique = [...new Set(ids)];
    const found = new Set((await this.competences.byIds(unique)).map((c) => c.id));
    const missing = unique.find((id) => !found.has(id));
    if (missing !== undefined) throw ApiError.malformed(P('prerequisite_competence_ids'), `no competence ${missing} exists`);
    return unique;
  }

  /**
   * Times and place: end after start; a module event inside its course's dates; a course event's
   * modules inside its new dates; the location's seats at least max_participants and no other (not
   * cancelled) event there at the same time. Its own course and modules do not clash with it.
   */
  async placement(e: Placement): Promise<void> {
    if (e.ends_at <= e.starts_at) throw ApiError.malformed(P('enddate'), `must be after startdate (${local(this.clock.zone, e.starts_at)} ${this.clock.zone})`);
    if (e.parent && (e.starts_at < e.parent.starts_at || e.ends_at > e.parent.ends_at)) {
      const inside = `must lie inside its course event ${e.parent.id} "${e.parent.title}" ${this.span(e.parent.starts_at, e.parent.ends_at)}`;
      throw ApiError.malformed(P(e.starts_at < e.parent.starts_at ? 'startdate' : 'enddate'), inside);
    }
    if (e.id !== undefined && !e.parent) {
      const outside = (await this.writes.modules(e.id)).find((m) => m.starts_at < e.starts_at || m.ends_at > e.ends_at);
      if (outside) {
        throw ApiError.malformed(
          P(outside.starts_at < e.starts_at ? 'startdate' : 'enddate'),
          `module event ${outside.id} "${outside.title}" ${this.span(outside.starts_at, outside.ends_at)} would lie outside the event; move it first`,
        );
      }
    }
    if (e.location_id === null) return;
    const location = await this.locations.findForUpdate(e.location_id);
    if (!location) throw ApiError.malformed(P('location_id'), `no location ${e.location_id} exists`);
    if (location.capacity !== null && e.max_participants !== null && location.capacity < e.max_participants) {
      throw ApiError.malformed(P('location_id'), `${location.name} holds ${location.capacity} seats, fewer than max_participants ${e.max_participants}`);
    }
    const family = [e.parent?.id ?? e.id].filter((id): id is number => id !== undefined);
    const clash = await this.writes.locationClash(e.location_id, e.starts_at, e.ends_at, family);
    if (clash) {
      throw ApiError.malformed(P('location_id'), `${location.name} hosts event ${clash.id} "${clash.title}" ${this.span(clash.starts_at, clash.ends_at)}`);
    }
  }
}
