import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { PersonAccess } from '../person-access';
import { OrganisationsRepository } from '../organisations/organisations.repository';
import { PersonsRepository, type PersonFilter } from './persons.repository';

/** Which organisations a list of persons asks for. */
export interface OrganisationScopeQuery {
  organisation_id?: number;
  organisation_ids?: number[];
  recursive?: boolean;
}

/**
 * The organisation part of a persons list: the organisations asked for (404 when unknown), what a
 * manager may see (403 for organisations outside the subtrees they manage), sub-organisations.
 * What else narrows the list (events, competences, roles) the flow adds as person-id sub-queries.
 */
@injectable()
export class PersonListScope {
  constructor(
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(OrganisationsRepository) private readonly organisations: OrganisationsRepository,
    @inject(PersonAccess) private readonly access: PersonAccess,
  ) {}

  async filter(user: Principal, query: OrganisationScopeQuery): Promise<PersonFilter> {
    const requested = orgIdsOf(query);
    const missing = requested ? await this.persons.missingOrganisations(requested) : [];
    if (missing.length) throw ApiError.notFound(`organisation ${missing.join(', ')}`);
    const filter: PersonFilter = { personIds: [] };
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
    return filter;
  }
}

function orgIdsOf(q: OrganisationScopeQuery): number[] | undefined {
  const ids = [...(q.organisation_id !== undefined ? [q.organisation_id] : []), ...(q.organisation_ids ?? [])];
  return ids.length ? [...new Set(ids)] : undefined;
}
