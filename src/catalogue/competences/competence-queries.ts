import type { Knex } from 'knex';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
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
  return db
    .table('competence_categories')
    .select('competence_id')
    .whereIn('category_id', [...categoryIds]);
}

/** Ids of the competences with any of the attributes. */
export function competencesWithAttributes(db: TenantDb, attributeIds: readonly number[]): Knex.QueryBuilder {
  return db
    .table('competence_attributes')
    .select('competence_id')
    .whereIn('attribute_id', [...attributeIds]);
}

/** Ids of the competence groups with these ids or external ids. */
export function competenceGroupsNamed(db: TenantDb, ids: readonly number[], externalIds: readonly string[]): Knex.QueryBuilder {
  return db
    .table('competence_groups')
    .select('id')
    .where((w) => {
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

/**
 * Registrations an expiry reminder may be about, as pc joined to its competence c (columns pc.id,
 * pc.person_id, pc.valid_until, c.title): held (current, passed, a checklist item checked or
 * overridden) registrations of active competences, valid until `today` (the tenant's day) or up
 * to `days` later. The caller narrows, orders and selects.
 */
export function expiringRegistrations(db: TenantDb, today: string, days: number): Knex.QueryBuilder {
  return db
    .table('person_competences as pc')
    .join('competences as c', 'c.id', 'pc.competence_id')
    .whereNull('pc.superseded_at')
    .whereNull('pc.deleted_at')
    .where('pc.passed', '>', 0)
    .where((w) => void w.whereRaw('pc.checked is not false').orWhere('pc.override', true))
    .where('c.active', true)
    .whereRaw('pc.valid_until >= ?::date and pc.valid_until <= ?::date + ?::int', [today, today, days]);
}

/**
 * Holds registration `id` for the caller's transaction (FOR SHARE: a renewal or deletion waits for
 * it) if it is still current with this valid_until; false when it changed meanwhile.
 */
export async function holdRegistration(db: TenantDb, id: number, validUntil: string): Promise<boolean> {
  const { rows } = await db.raw(`select 1 from ?? where id = ? and superseded_at is null and deleted_at is null and valid_until = ?::date for share`, [
    db.ref('person_competences'),
    id,
    validUntil,
  ]);
  return rows.length > 0;
}
