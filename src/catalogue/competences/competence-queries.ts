import type { Knex } from 'knex';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import { heldOn } from '../personcompetences/personcompetences.repository';

/*
 * How other modules' queries reach competences and registrations: these functions name the
 * catalogue's tables; callers name only the columns documented here.
 */

/** Joins competences as `alias` on `on` (columns: id, title, type, owner_id, instructor_id, competence_group_id, ...). */
export function joinCompetences(q: Knex.QueryBuilder, alias: string, on: string): Knex.QueryBuilder {
  return q.join(`competences as ${alias}`, `${alias}.id`, on);
}

/** Ids of the competences in any of the categories. */
export function competencesInCategories(db: TenantDb, categoryIds: readonly number[]): Knex.QueryBuilder {
  return db.table('competence_categories').select('competence_id').whereIn('category_id', [...categoryIds]);
}

/** Ids of the competences with any of the attributes. */
export function competencesWithAttributes(db: TenantDb, attributeIds: readonly number[]): Knex.QueryBuilder {
  return db.table('competence_attributes').select('competence_id').whereIn('attribute_id', [...attributeIds]);
}

/** Ids of the competence groups with these ids or external ids. */
export function competenceGroupsNamed(db: TenantDb, ids: readonly number[], externalIds: readonly string[]): Knex.QueryBuilder {
  return db.table('competence_groups').select('id').where((w) => {
    w.whereIn('id', [...ids]).orWhereIn('external_id', [...externalIds]);
  });
}

/**
 * Registrations that count as held on `today` (the tenant's day), as pc (columns person_id,
 * competence_id): narrow them to a person and a competence for an exists sub-query.
 */
export function heldRegistrations(db: TenantDb, today: string): Knex.QueryBuilder {
  return heldOn(db.table('person_competences as pc'), today);
}
