import type { TenantClock } from '../../platform/time/tenant-clock';
import { z } from 'zod';
import type { Knex } from 'knex';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Tenant } from '../../platform/tenancy/tenant';
import { p } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import type { CustomAttributeDefinition } from '../../platform/config-items/config-item-registry';
import { joinPersons, organisationContext, organisationSubtree, organisationsNamed } from '../../people';
import { competenceGroupsNamed, competencesInCategories, competencesWithAttributes } from '../../catalogue';

export const eventFilterShape = {
  competence_id: p.id().optional(),
  organisation_ids: p.idList().optional(),
  recursive: p.bool().optional(),
  context_organisation_ids: p.idList().optional(),
  context_extern_organisation_ids: p.stringList().optional(),
  host_organisation_ids: p.idList().optional(),
  host_organisation_external_ids: p.stringList().optional(),
  term: p.string(200).optional(),
  cancelled: p.bool().optional(),
  category_ids: p.idList().optional(),
  attribute_ids: p.idList().optional(),
  competence_group_ids: p.idList().optional(),
  external_competence_group_ids: p.stringList().optional(),
  location_id: p.id().optional(),
  mode: z.enum(['future', 'finished', 'notfinished', 'all'], { message: 'must be future, finished, notfinished or all' }).optional(),
  startdate: p.when().optional(),
  enddate: p.when().optional(),
  sort_direction: z.enum(['asc', 'desc'], { message: 'must be asc or desc' }).optional(),
};
export type EventFilters = z.infer<z.ZodObject<typeof eventFilterShape>> & { custom_attributes?: Record<string, string> };

/**
 * custom_attributes.<name>=<value> arrives as a dotted key (or bracket form as an object);
 * names must be defined for events in the tenant's custom_attributes config item.
 */
export function customAttributeFilters(tenant: Tenant, raw: Record<string, unknown>): Record<string, string> {
  const found: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k.startsWith('custom_attributes.')) found[k.slice('custom_attributes.'.length)] = v;
  }
  const nested = raw.custom_attributes;
  if (nested && typeof nested === 'object' && !Array.isArray(nested)) Object.assign(found, nested);
  else if (nested !== undefined) throw ApiError.malformed('custom_attributes', 'use custom_attributes.<name>=<value>');
  const defined = (tenant.config.get('custom_attributes') as unknown as CustomAttributeDefinition[]).filter((d) => d.applies_to.includes('event'));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(found)) {
    if (!defined.some((d) => d.name === name)) {
      const known = defined.map((d) => d.name).join(', ') || 'none';
      throw ApiError.malformed(`custom_attributes.${name}`, `no such custom attribute for events (defined: ${known})`);
    }
    if (typeof value !== 'string') throw ApiError.malformed(`custom_attributes.${name}`, 'must be a single value');
    out[name] = value;
  }
  return out;
}

/** Organisation ids plus, with recursive, everything below them. */
function orgTree(db: TenantDb, ids: number[], recursive: boolean): Knex.Raw | number[] {
  if (!recursive) return ids;
  return organisationSubtree(db, ids);
}

/** Applies every GET /api/events filter to EventsRepository.base(). */
/** Modes compare instants with the clock's now; date-only startdate / enddate are days of the tenant's zone. */
export function applyEventFilters(db: TenantDb, q: Knex.QueryBuilder, f: EventFilters, clock: TenantClock): Knex.QueryBuilder {
  const now = clock.now();
  q.whereNull('e.parent_id');
  if (f.competence_id) q.where('e.competence_id', f.competence_id);
  if (!f.cancelled) q.where('e.cancelled', false);
  if (f.term) {
    const like = `%${f.term.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    q.where((w) => w.whereILike('e.title', like).orWhereILike('e.description', like).orWhereILike('c.title', like));
  }
  if (f.organisation_ids?.length) {
    const orgs = orgTree(db, f.organisation_ids, f.recursive ?? false);
    q.whereExists(
      joinPersons(db.table('person_events as pe'), 'pp', 'pe.person_id')
        .whereRaw('pe.event_id = e.id')
        .whereNot('pe.status', 'signed_off')
        .whereIn('pp.organisation_id', orgs as any),
    );
  }
  if (f.context_organisation_ids?.length || f.context_extern_organisation_ids?.length) {
    // Available in an organisation's context: hosted by it or by an organisation above it, or hosted by nobody.
    const ancestors = organisationContext(db, f.context_organisation_ids ?? [], f.context_extern_organisation_ids ?? []);
    q.where((w) => w.whereNull('e.host_organisation_id').orWhereIn('e.host_organisation_id', ancestors as any));
  }
  if (f.host_organisation_ids?.length || f.host_organisation_external_ids?.length) {
    q.whereIn('e.host_organisation_id', organisationsNamed(db, f.host_organisation_ids ?? [], f.host_organisation_external_ids ?? []));
  }
  if (f.category_ids?.length) q.whereIn('e.competence_id', competencesInCategories(db, f.category_ids));
  if (f.attribute_ids?.length) q.whereIn('e.competence_id', competencesWithAttributes(db, f.attribute_ids));
  if (f.competence_group_ids?.length || f.external_competence_group_ids?.length) {
    q.whereIn('c.competence_group_id', competenceGroupsNamed(db, f.competence_group_ids ?? [], f.external_competence_group_ids ?? []));
  }
  if (f.startdate || f.enddate) {
    if (f.startdate) q.where('e.starts_at', '>=', clock.start(f.startdate));
    if (f.enddate) q.where('e.starts_at', '<', clock.start(f.enddate));
    // The spec honours location_id only together with both dates.
    if (f.location_id && f.startdate && f.enddate) q.where('e.location_id', f.location_id);
  } else {
    const mode = f.mode ?? 'future';
    if (mode === 'future') q.where('e.starts_at', '>=', now);
    else if (mode === 'finished') q.where('e.ends_at', '<', now);
    else if (mode === 'notfinished') q.where('e.ends_at', '>=', now);
  }
  for (const [name, value] of Object.entries(f.custom_attributes ?? {})) {
    q.whereRaw('e.custom_attributes ->> ? = ?', [name, value]);
  }
  return q;
}
