import type { Knex } from 'knex';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/*
 * Roles as other modules' person queries ask for them, composed by a flow (src/flows/persons):
 * each builder reads roles and person_roles only and is correlated to no alias of the caller.
 */

/** Ids of the persons who hold any of the roles: a sub-query for `whereIn(<person id column>, ...)`. */
export function personsHoldingRoles(db: TenantDb, roleIds: readonly number[]): Knex.QueryBuilder {
  return db
    .table('person_roles')
    .select('person_id')
    .whereIn('role_id', [...roleIds]);
}

/**
 * The roles the person in `personIdColumn` holds, as one JSON array of {id, name, meta_type} by id
 * ([] for none): a scalar sub-select for a person query, which names its own person id column, so
 * a person's full view stays one statement.
 */
export function heldRolesJson(db: TenantDb, personIdColumn: string): Knex.Raw {
  return db.raw(
    `coalesce((select json_agg(json_build_object('id', r.id, 'name', r.name, 'meta_type', r.meta_type) order by r.id)
       from ?? pr join ?? r on r.id = pr.role_id where pr.person_id = ??), '[]'::json)`,
    [db.ref('person_roles'), db.ref('roles'), personIdColumn],
  );
}
