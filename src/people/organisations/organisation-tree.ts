import type { Knex } from 'knex';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/**
 * Sub-queries over the organisation tree, for whereIn(column, ...). One place for the
 * recursive SQL that permissions, lists and filters all need.
 */

/** Ids of the given organisations and every organisation below them. */
export function organisationSubtree(db: TenantDb, ids: number | readonly number[]): Knex.Raw {
  return db.raw(
    `(with recursive sub(id) as (
        select id from ?? where id = any(?)
        union select o.id from ?? o join sub on o.parent_id = sub.id)
      select id from sub)`,
    [db.ref('organisations'), typeof ids === 'number' ? [ids] : [...ids], db.ref('organisations')],
  );
}

/** Ids of the persons who belong to the given organisations or any organisation below them. */
export function personsInSubtree(db: TenantDb, ids: number | readonly number[]): Knex.Raw {
  return db.raw(
    `(with recursive sub(id) as (
        select id from ?? where id = any(?)
        union select o.id from ?? o join sub on o.parent_id = sub.id)
      select p.id from ?? p join sub on p.organisation_id = sub.id)`,
    [db.ref('organisations'), typeof ids === 'number' ? [ids] : [...ids], db.ref('organisations'), db.ref('persons')],
  );
}

/** Ids of the organisations with these ids or external ids, and every organisation above them. */
export function organisationContext(db: TenantDb, ids: readonly number[], externalIds: readonly string[]): Knex.Raw {
  return db.raw(
    `(with recursive up(id, parent_id) as (
        select id, parent_id from ?? where id = any(?) or extern_organisation_id = any(?)
        union select o.id, o.parent_id from ?? o join up on o.id = up.parent_id)
      select id from up)`,
    [db.ref('organisations'), [...ids], [...externalIds], db.ref('organisations')],
  );
}

/** Ids of the given organisations and every organisation above them. */
export function organisationAncestors(db: TenantDb, ids: readonly number[]): Knex.Raw {
  return db.raw(
    `(with recursive up(id, parent_id) as (
        select id, parent_id from ?? where id = any(?)
        union select o.id, o.parent_id from ?? o join up on o.id = up.parent_id)
      select id from up)`,
    [db.ref('organisations'), [...ids], db.ref('organisations')],
  );
}
