import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Tenant } from '../../platform/tenancy/tenant';
import { passwordChangeReason } from './password-state';
import { PersonAccess } from '../person-access';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import type { Paging } from '../../platform/http/param-types';
import { OrganisationsRepository } from '../organisations/organisations.repository';
import { PERSON_ATTENDANCE, PERSON_QUALIFICATIONS, PERSON_ROLES, type PersonAttendance, type PersonQualifications, type PersonRoles } from '../person-ports';
import { PersonsRepository, type PersonFilter } from './persons.repository';
import type { PersonRow } from '../person-row';
import { presentPersonFull, presentPersonSimple } from './person.presenter';
import { TenantClock } from '../../platform/time/tenant-clock';

export type PersonView = 'simple' | 'full';

export interface PersonListQuery {
  organisation_id?: number;
  organisation_ids?: number[];
  recursive?: boolean;
  event_id?: number;
  has_competence_ids?: number[];
  role_ids?: number[];
}

/** Reading persons: one person and filtered lists (who may ask is the routes' access rule). */
@injectable()
export class PersonsService {
  constructor(
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(OrganisationsRepository) private readonly organisations: OrganisationsRepository,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(PERSON_ROLES) private readonly roles: PersonRoles,
    @inject(PERSON_QUALIFICATIONS) private readonly qualifications: PersonQualifications,
    @inject(PERSON_ATTENDANCE) private readonly attendance: PersonAttendance,
  ) {}

  async requireByUserName(userName: string, withDetails = false): Promise<PersonRow> {
    const row = await this.persons.findByUserName(userName, withDetails);
    if (!row) throw ApiError.notFound(`person "${userName}"`);
    return row;
  }

  async requireById(id: number, withDetails = false): Promise<PersonRow> {
    const row = await this.persons.findById(id, withDetails);
    if (!row) throw ApiError.notFound(`person ${id}`);
    return row;
  }

  async get(id: number, view: PersonView): Promise<object> {
    return this.present(await this.requireById(id, view === 'full'), view);
  }

  async present(row: PersonRow, view: PersonView): Promise<object> {
    if (view === 'simple') return presentPersonSimple(row);
    // the effective reason, so an expired password shows as 'expired' though nothing is stored
    const reason = passwordChangeReason(row, this.tenant.config.get('password.max_age_days'));
    return presentPersonFull({ ...row, must_change_password: reason }, await this.persons.details(row));
  }

  async list(user: Principal, query: PersonListQuery, page: Paging, view: PersonView): Promise<object[]> {
    if (query.event_id !== undefined && query.has_competence_ids) {
      throw ApiError.malformed('has_competence_ids', 'cannot be combined with event_id');
    }
    const requested = orgIdsOf(query);
    await this.assertExist('organisations', requested ?? [], 'organisation');
    const filter: PersonFilter = { matching: [] };
    if (!user.superuser) {
      // the route lets managers in; each sees the subtrees they manage
      const managed = await this.access.managedOrganisationIds(user.personId);
      const foreign = (requested ?? []).filter((id) => !managed.has(id));
      if (foreign.length) {
        throw ApiError.forbidden(`not authorised to list members of organisation ${foreign.join(', ')}: only its manager or a superuser may`);
      }
      filter.visibleOrganisationIds = [...managed];
    }
    if (requested) filter.organisationIds = query.recursive ? await this.organisations.subtreeIds(requested) : requested;
    if (query.event_id !== undefined) {
      await this.assertExist('events', [query.event_id], 'event');
      filter.matching!.push(this.attendance.attends(this.db, query.event_id));
    }
    if (query.has_competence_ids) {
      await this.assertExist('competences', query.has_competence_ids, 'competence');
      // fulfilled = the current registration is passed and still valid today
      const today = this.clock.today();
      for (const id of new Set(query.has_competence_ids)) filter.matching!.push(this.qualifications.holds(this.db, id, today));
    }
    if (query.role_ids) {
      await this.assertExist('roles', query.role_ids, 'role');
      filter.matching!.push(this.roles.holdsAny(this.db, query.role_ids));
    }
    if (view === 'simple') return (await this.persons.list(filter, page, 'simple')).map(presentPersonSimple);
    const rows = await this.persons.list(filter, page, 'full');
    return Promise.all(rows.map((r) => this.present(r, view)));
  }

  async assertExist(kind: 'roles' | 'competences' | 'events' | 'organisations', ids: number[], what: string): Promise<void> {
    const unique = [...new Set(ids)];
    const missing =
      unique.length === 0
        ? []
        : kind === 'organisations'
          ? await this.persons.missingOrganisations(unique)
          : await (kind === 'roles' ? this.roles : kind === 'competences' ? this.qualifications : this.attendance).missing(unique);
    if (missing.length) throw ApiError.notFound(`${what} ${missing.join(', ')}`);
  }
}

function orgIdsOf(q: PersonListQuery): number[] | undefined {
  const ids = [...(q.organisation_id !== undefined ? [q.organisation_id] : []), ...(q.organisation_ids ?? [])];
  return ids.length ? [...new Set(ids)] : undefined;
}
