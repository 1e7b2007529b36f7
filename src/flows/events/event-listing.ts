import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { TenantClock } from '../../platform/time/tenant-clock';
import {
  EventsRepository,
  EventsService,
  applyEventFilters,
  type DescribedEvent,
  type EventFilters,
  type EventViewOptions,
  type ResolvedEventFilters,
} from '../../courses';
import { competenceGroupsNamed, competencesInCategories, competencesWithAttributes, joinCompetences } from '../../catalogue';
import { joinPersons, organisationContext, organisationSubtree, organisationsNamed, personsInOrganisations } from '../../people';

/**
 * The event views (GET /events, /events/:id, /competences/:id/events, /locations/:id/events):
 * courses' events with their competence's title (catalogue) and instructor's user name (people),
 * filtered by organisations (people) and competences (catalogue). Each page is one statement, as
 * when courses joined the other modules' tables itself: this flow composes the query instead.
 */
@injectable()
export class EventListingFlow {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(EventsRepository) private readonly events: EventsRepository,
    @inject(EventsService) private readonly service: EventsService,
    @inject(TenantClock) private readonly clock: TenantClock,
  ) {}

  /** Events (e) with their competence (c: title, competence_group_id) and instructor (i: user_name): DescribedEvent rows. */
  private described(): Knex.QueryBuilder {
    const withCompetence = joinCompetences(this.events.base(), 'c', 'e.competence_id');
    return joinPersons(withCompetence, 'i', 'e.instructor_id', 'left').select('c.title as competence_title', 'i.user_name as instructor_user_name');
  }

  async list(filters: EventFilters, paging: Paging, v: EventViewOptions): Promise<Record<string, unknown>[]> {
    const q = applyEventFilters(this.db, this.described(), filters, this.resolved(filters), this.clock);
    if (filters.competence_group_ids?.length || filters.external_competence_group_ids?.length) {
      // the group is a column of the competence this query joined
      q.whereIn('c.competence_group_id', competenceGroupsNamed(this.db, filters.competence_group_ids ?? [], filters.external_competence_group_ids ?? []));
    }
    const rows = await this.events.page<DescribedEvent>(q, paging, filters.sort_direction ?? 'asc');
    return this.present(rows, v);
  }

  /** One event by id (module events too); 404 when missing. */
  async one(id: number, v: EventViewOptions): Promise<Record<string, unknown>[]> {
    const row = await this.events.find<DescribedEvent>(id, this.described());
    if (!row) throw ApiError.notFound(`event ${id}`);
    return this.present([row], v);
  }

  /** The course events at a location overlapping from..to, cancelled ones included. */
  async atLocation(locationId: number, from: Date, to: Date, paging: Paging, v: EventViewOptions): Promise<Record<string, unknown>[]> {
    const rows = await this.events.page<DescribedEvent>(this.events.atLocation(this.described(), locationId, from, to), paging, 'asc');
    return this.present(rows, v);
  }

  private async present(rows: DescribedEvent[], v: EventViewOptions): Promise<Record<string, unknown>[]> {
    const children = await this.events.children<DescribedEvent>(
      this.described(),
      rows.filter((r) => r.parent_id === null).map((r) => r.id),
    );
    return this.service.present(rows, children, v);
  }

  /** The filters people and the catalogue answer, as id sets (self-contained sub-queries) for courses' query. */
  private resolved(f: EventFilters): ResolvedEventFilters {
    const { db } = this;
    const resolved: ResolvedEventFilters = { termAlsoIn: ['c.title'], competences: [] };
    if (f.organisation_ids?.length) {
      const organisations = f.recursive ? organisationSubtree(db, f.organisation_ids) : f.organisation_ids;
      resolved.participants = personsInOrganisations(db, organisations);
    }
    if (f.context_organisation_ids?.length || f.context_extern_organisation_ids?.length) {
      resolved.hostedByNobodyOr = organisationContext(db, f.context_organisation_ids ?? [], f.context_extern_organisation_ids ?? []);
    }
    if (f.host_organisation_ids?.length || f.host_organisation_external_ids?.length) {
      resolved.hostedBy = organisationsNamed(db, f.host_organisation_ids ?? [], f.host_organisation_external_ids ?? []);
    }
    if (f.category_ids?.length) resolved.competences!.push(competencesInCategories(db, f.category_ids));
    if (f.attribute_ids?.length) resolved.competences!.push(competencesWithAttributes(db, f.attribute_ids));
    return resolved;
  }
}
