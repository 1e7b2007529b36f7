import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { OrganisationDirectory, organisationAncestors, type TargetPerson } from '../../people';
import { CompetencesRepository, RolesRepository, presentRole, type RoleFilter } from '../../catalogue';

export interface RoleQuery {
  term?: string;
  metaTypes?: string[];
  competenceId?: number;
  state?: 'mandatory' | 'optional';
  organisationIds?: number[];
  externOrganisationIds?: string[];
  /** Every role of the tenant (the route lets superusers and superadmins only). */
  all?: boolean;
}

/**
 * GET /api/roles: the roles of a person, for a competence, made available on organisations
 * (there or above them: people's tree, handed to the catalogue as a sub-query of organisation ids),
 * or all of them (all=1, what the admin console's role editor lists).
 */
@injectable()
export class ListRolesFlow {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(RolesRepository) private readonly roles: RolesRepository,
    @inject(CompetencesRepository) private readonly competences: CompetencesRepository,
    @inject(OrganisationDirectory) private readonly organisations: OrganisationDirectory,
  ) {}

  /** `person`: whose roles, when neither a competence nor organisations are given (resolved and allowed by the route). */
  async list(q: RoleQuery, person: TargetPerson | undefined, page: Paging) {
    const f: RoleFilter = { term: q.term || undefined, metaTypes: q.metaTypes };
    if (q.state && q.competenceId === undefined) throw ApiError.malformed('state', 'only applies together with competence_id');
    if (q.competenceId !== undefined) {
      // The catalogue of requirements is visible to every logged-in user.
      if (!(await this.competences.byId(q.competenceId))) throw ApiError.notFound(`competence ${q.competenceId}`);
      f.competenceId = q.competenceId;
      f.requirement = q.state;
    } else if (q.organisationIds || q.externOrganisationIds) {
      const external = q.externOrganisationIds ? await this.organisations.idsByExternalIds(q.externOrganisationIds) : [];
      f.availableOn = organisationAncestors(this.db, [...(q.organisationIds ?? []), ...external]);
    } else if (!q.all) {
      f.personId = person!.id;
    }
    return (await this.roles.list(f, page)).map(presentRole);
  }
}
