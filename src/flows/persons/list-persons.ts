import { inject, injectable } from 'tsyringe';
import type { ViewName } from '../../platform/http/param-types';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Principal } from '../../platform/auth/principal';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { TenantClock } from '../../platform/time/tenant-clock';
import { PersonListScope, PersonsRepository, presentPersonSimple, type OrganisationScopeQuery, type PersonState } from '../../people';
import { PersonRolesStore, Qualifications, heldRolesJson, personsHoldingCompetence, personsHoldingRoles } from '../../catalogue';
import { Attendance, personsAttending } from '../../courses';
import { PersonViews } from './person-views';
import { requireKnown } from './known-ids';

export interface PersonListQuery extends OrganisationScopeQuery {
  event_id?: number;
  has_competence_ids?: number[];
  role_ids?: number[];
  /** active (default), deactivated or all. */
  state?: PersonState;
  /** Text searched for in user name, names, e-mail and employee code. */
  term?: string;
}

/**
 * GET /api/persons and /api/organisations/[id]/persons: people's list, narrowed by what other
 * modules know. Catalogue and courses hand self-contained person-id sub-queries on their own tables
 * (holders of a role, of a competence, attendees of an event), which people's list query takes as
 * `p.id in (...)`: still one statement, and no module names another's tables or aliases. The
 * handle they are built on (TENANT_DB) is only passed through.
 */
@injectable()
export class ListPersonsFlow {
  constructor(
    @inject(PersonListScope) private readonly scope: PersonListScope,
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(PersonViews) private readonly views: PersonViews,
    @inject(Attendance) private readonly attendance: Attendance,
    @inject(Qualifications) private readonly qualifications: Qualifications,
    @inject(PersonRolesStore) private readonly roles: PersonRolesStore,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(TENANT_DB) private readonly db: TenantDb,
  ) {}

  async list(user: Principal, query: PersonListQuery, page: Paging, view: ViewName): Promise<object[]> {
    if (query.event_id !== undefined && query.has_competence_ids) {
      throw ApiError.malformed('has_competence_ids', 'cannot be combined with event_id');
    }
    const filter = await this.scope.filter(user, query);
    filter.state = query.state ?? 'active';
    if (query.term) filter.term = query.term;
    if (query.event_id !== undefined) {
      await requireKnown('event', [query.event_id], (ids) => this.attendance.missing(ids));
      filter.personIds.push(personsAttending(this.db, query.event_id));
    }
    if (query.has_competence_ids) {
      await requireKnown('competence', query.has_competence_ids, (ids) => this.qualifications.missing(ids));
      // fulfilled = the current registration is passed and still valid today
      const today = this.clock.today();
      for (const id of new Set(query.has_competence_ids)) filter.personIds.push(personsHoldingCompetence(this.db, id, today));
    }
    if (query.role_ids) {
      await requireKnown('role', query.role_ids, (ids) => this.roles.missing(ids));
      filter.personIds.push(personsHoldingRoles(this.db, query.role_ids));
    }
    if (view === 'simple') return (await this.persons.list(filter, page)).map(presentPersonSimple);
    const rows = await this.persons.list(filter, page, heldRolesJson);
    return Promise.all(rows.map((r) => this.views.present(r, view)));
  }
}
