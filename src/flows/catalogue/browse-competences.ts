import { inject, injectable } from 'tsyringe';
import type { ViewName } from '../../platform/http/param-types';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Principal } from '../../platform/auth/principal';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { OrganisationDirectory, PersonAccess, PersonDirectory, organisationAncestors } from '../../people';
import {
  COURSE_TEMPLATE_TYPES,
  CompetencePresenter,
  CompetencesRepository,
  customAttributeFilter,
  personIdsOf,
  type CompetenceFilter,
  type CompetenceRow,
} from '../../catalogue';

export interface CompetenceQuery {
  mode?: 'active' | 'inactive' | 'all';
  competence_group_ids?: number[];
  external_competence_group_ids?: string[];
  types?: string[];
  term?: string;
  category_ids?: number[];
  attribute_ids?: number[];
  course_template_usage_allowed_only?: boolean;
  owner_only?: boolean;
  instructor_only?: boolean;
  organisation_owner_only?: boolean;
  users_organisations_only?: boolean;
  organisation_ids?: number[];
  external_organisation_ids?: string[];
  user_name?: string;
  [key: string]: unknown;
}

/**
 * GET /api/competences(/:id): the catalogue's competences, filtered by who may see what (people's
 * access rules), by organisations (people's tree) and presented with their owners' and
 * instructors' user names (people's directory).
 */
@injectable()
export class BrowseCompetencesFlow {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(CompetencesRepository) private readonly competences: CompetencesRepository,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(OrganisationDirectory) private readonly organisations: OrganisationDirectory,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
  ) {}

  /** One page of top-level competences matching the parameters, in the view asked for. */
  async search(user: Principal, q: CompetenceQuery, page: Paging, view: ViewName): Promise<Record<string, unknown>[]> {
    const filter = await this.filter(user, q);
    const rows = filter ? await this.competences.search(filter, page) : [];
    return this.present(rows, view);
  }

  /** Any competence, a nested one too; 404 when unknown. */
  async one(competenceId: number, view: ViewName): Promise<Record<string, unknown>[]> {
    const row = await this.competences.byId(competenceId);
    if (!row) throw ApiError.notFound(`competence ${competenceId}`);
    return this.present([row], view);
  }

  /** The parameters as a repository filter, applying who may use which; null when nothing can match. */
  private async filter(user: Principal, q: CompetenceQuery): Promise<CompetenceFilter | null> {
    if (q.organisation_owner_only) throw new ApiError(501, 'organisation_owner_only is not supported');
    const f: CompetenceFilter = { mode: q.mode ?? 'active', types: q.types, categoryIds: q.category_ids, attributeIds: q.attribute_ids };
    if (q.term) f.term = q.term;
    f.customAttributes = customAttributeFilter(this.tenant, q, 'competence');
    if (q.competence_group_ids || q.external_competence_group_ids) {
      const direct = [
        ...(q.competence_group_ids ?? []),
        ...(q.external_competence_group_ids ? await this.competences.groupIdsByExternalId(q.external_competence_group_ids) : []),
      ];
      f.groupIds = direct.length ? await this.competences.groupSubtree(direct) : [];
      if (f.groupIds.length === 0) return null;
    }
    if (q.course_template_usage_allowed_only) {
      f.types = (f.types ?? COURSE_TEMPLATE_TYPES).filter((t) => COURSE_TEMPLATE_TYPES.includes(t as any));
      // Superusers and managers may create events from any course template; others only from their own.
      if (!user.superuser && !(await this.access.isManager(user))) f.ownerId = user.personId;
    }
    if (q.owner_only || q.instructor_only) {
      const who = await this.access.target(user, q.user_name);
      await this.access.assert(user, who, 'selfOrManager', `list the competences of ${who.user_name}`);
      if (q.owner_only) f.ownerId = who.id;
      if (q.instructor_only) f.instructorId = who.id;
    }
    // A restriction to an organisation holds below it: valid where the organisation or one above it is named.
    if (q.organisation_ids || q.external_organisation_ids) {
      if (!user.superuser && !(await this.access.isSuperadmin(user))) {
        throw ApiError.forbidden('not authorised to filter competences by organisation_ids: superusers and superadmins only');
      }
      const ids = [
        ...(q.organisation_ids ?? []),
        ...(q.external_organisation_ids ? await this.organisations.idsByExternalIds(q.external_organisation_ids) : []),
      ];
      if (ids.length === 0) return null;
      f.validIn = [organisationAncestors(this.db, ids)];
    }
    if (q.users_organisations_only) {
      if (user.organisationId === null) return null;
      f.validIn = [...(f.validIn ?? []), organisationAncestors(this.db, [user.organisationId])];
    }
    return f;
  }

  private async present(rows: CompetenceRow[], view: ViewName): Promise<Record<string, unknown>[]> {
    const descendants = await this.competences.descendants(rows.map((r) => r.id));
    const all = [...rows, ...descendants];
    const presenter = new CompetencePresenter(descendants, await this.competences.extras(all), await this.persons.userNames(personIdsOf(all)));
    return rows.map((r) => presenter.present(r, view));
  }
}
