import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenancy/tenant';
import type { Principal } from '../../platform/auth/principal';
import type { CustomAttributeDefinition } from '../../platform/config-items/config-item-registry';
import { ApiError } from '../../platform/errors/api-error';
import { OrganisationDirectory, PersonAccess } from '../../people';
import { CompetencesRepository, type CompetenceFilter } from './competences.repository';
import { COURSE_TEMPLATE_TYPES } from './competence-types';

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
 * `custom_attributes.<name>=<value>` (or bracket form custom_attributes[name]=value):
 * names must be defined for competences in the tenant's custom_attributes config item.
 */
export function customAttributeFilter(tenant: Tenant, input: Record<string, unknown>, appliesTo: 'competence' | 'event'): Record<string, string> {
  const given: [string, string, unknown][] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key.startsWith('custom_attributes.')) given.push([key, key.slice('custom_attributes.'.length), value]);
  }
  const nested = input.custom_attributes;
  if (nested !== undefined) {
    if (typeof nested !== 'object' || nested === null || Array.isArray(nested)) {
      throw ApiError.malformed('custom_attributes', 'use custom_attributes.<name>=<value>');
    }
    for (const [name, value] of Object.entries(nested)) given.push([`custom_attributes[${name}]`, name, value]);
  }
  const defs = (tenant.config.get('custom_attributes') as CustomAttributeDefinition[]).filter((d) => d.applies_to.includes(appliesTo));
  const out: Record<string, string> = {};
  for (const [param, name, value] of given) {
    if (!defs.some((d) => d.name === name)) {
      const known = defs.map((d) => d.name).join(', ') || 'none';
      throw ApiError.malformed(param, `unknown custom attribute "${name}" for ${appliesTo}s; defined: ${known}`);
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw ApiError.malformed(param, 'must be a single value');
    }
    out[name] = String(value);
  }
  return out;
}

/** Turns the GET /api/competences parameters into a repository filter, applying who may use which. */
@injectable()
export class CompetenceSearch {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(CompetencesRepository) private readonly repo: CompetencesRepository,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(OrganisationDirectory) private readonly organisations: OrganisationDirectory,
  ) {}

  async filter(user: Principal, q: CompetenceQuery): Promise<CompetenceFilter | null> {
    if (q.organisation_owner_only) throw new ApiError(501, 'organisation_owner_only is not supported');
    const f: CompetenceFilter = { mode: q.mode ?? 'active', types: q.types, categoryIds: q.category_ids, attributeIds: q.attribute_ids };
    if (q.term) f.term = q.term;
    f.customAttributes = customAttributeFilter(this.tenant, q, 'competence');
    if (q.competence_group_ids || q.external_competence_group_ids) {
      const direct = [...(q.competence_group_ids ?? []), ...(q.external_competence_group_ids ? await this.repo.groupIdsByExternalId(q.external_competence_group_ids) : [])];
      f.groupIds = direct.length ? await this.repo.groupSubtree(direct) : [];
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
    if (q.organisation_ids || q.external_organisation_ids) {
      if (!user.superuser && !(await this.access.isSuperadmin(user))) {
        throw ApiError.forbidden('not authorised to filter competences by organisation_ids: superusers and superadmins only');
      }
      const ids = [...(q.organisation_ids ?? []), ...(q.external_organisation_ids ? await this.organisations.idsByExternalIds(q.external_organisation_ids) : [])];
      if (ids.length === 0) return null;
      f.validIn = [ids];
    }
    if (q.users_organisations_only) {
      if (user.organisationId === null) return null;
      f.validIn = [...(f.validIn ?? []), [user.organisationId]];
    }
    return f;
  }
}
