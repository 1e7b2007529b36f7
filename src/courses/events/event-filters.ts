import type { TenantClock } from '../../platform/time/tenant-clock';
import { z } from 'zod';
import type { Knex } from 'knex';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { p } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';

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
  const defined = tenant.config.get('custom_attributes').filter((d) => d.applies_to.includes('event'));
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

/** Ids, or a self-contained sub-query selecting one id column (correlated to no outer alias). */
export type IdSet = readonly number[] | Knex.QueryBuilder | Knex.Raw;

/**
 * The filters of GET /api/events that other modules answer (organisations, competences), resolved
 * by the flow into id sets, and what the term is looked for in beyond the event's own text.
 */
export interface ResolvedEventFilters {
  /** organisation_ids: events with a live sign-on (seat or wait list) of one of these persons. */
  participants?: IdSet;
  /** context_organisation_ids: events hosted by nobody or by one of these organisations. */
  hostedByNobodyOr?: IdSet;
  /** host_organisation_ids: events hosted by one of these organisations. */
  hostedBy?: IdSet;
  /** category_ids, attribute_ids: events of competences in every one of these sets. */
  competences?: IdSet[];
  /** Columns of the caller's read model the term is looked for in too (the competence's title). */
  termAlsoIn?: string[];
}

/** Applies every GET /api/events filter to a query on EventsRepository.base() (events as e). */
/** Modes compare instants with the clock's now; date-only startdate / enddate are days of the tenant's zone. */
export function applyEventFilters(db: TenantDb, q: Knex.QueryBuilder, f: EventFilters, resolved: ResolvedEventFilters, clock: TenantClock): Knex.QueryBuilder {
  const now = clock.now();
  q.whereNull('e.parent_id');
  if (f.competence_id) q.where('e.competence_id', f.competence_id);
  if (!f.cancelled) q.where('e.cancelled', false);
  if (f.term) {
    const like = `%${f.term.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    q.where((w) => {
      w.whereILike('e.title', like).orWhereILike('e.description', like);
      for (const column of resolved.termAlsoIn ?? []) w.orWhereILike(column, like);
    });
  }
  if (resolved.participants) {
    q.whereExists(
      db
        .table('person_events as pe')
        .whereRaw('pe.event_id = e.id')
        .whereNot('pe.status', 'signed_off')
        .whereIn('pe.person_id', resolved.participants as any),
    );
  }
  if (resolved.hostedByNobodyOr) {
    // Available in an organisation's context: hosted by it or by an organisation above it, or hosted by nobody.
    const hosts = resolved.hostedByNobodyOr;
    q.where((w) => void w.whereNull('e.host_organisation_id').orWhereIn('e.host_organisation_id', hosts as any));
  }
  if (resolved.hostedBy) q.whereIn('e.host_organisation_id', resolved.hostedBy as any);
  for (const competences of resolved.competences ?? []) q.whereIn('e.competence_id', competences as any);
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
