import type { Knex } from 'knex';
import type { TenantDb } from '../platform/tenant-scope/tenant-db';
import type { PersonState } from './person-row';

/*
 * How other modules' queries reach persons and organisations: these functions name the tables,
 * the callers name only columns of PersonRow (and id, name, parent_id of an organisation). A
 * join keeps a list one query, as it was; the people module stays the one place that knows
 * the tables.
 */

type Join = 'inner' | 'left';

/** Joins persons as `alias` on `on`, a person id column of the caller's query. */
export function joinPersons(q: Knex.QueryBuilder, alias: string, on: string, join: Join = 'inner'): Knex.QueryBuilder {
  return join === 'left' ? q.leftJoin(`persons as ${alias}`, `${alias}.id`, on) : q.join(`persons as ${alias}`, `${alias}.id`, on);
}

/** Joins organisations as `alias` on `on`, an organisation id column of the caller's query. */
export function joinOrganisations(q: Knex.QueryBuilder, alias: string, on: string, join: Join = 'inner'): Knex.QueryBuilder {
  return join === 'left' ? q.leftJoin(`organisations as ${alias}`, `${alias}.id`, on) : q.join(`organisations as ${alias}`, `${alias}.id`, on);
}

/** The user name of the person whose id is in the column `idColumn`, as a scalar sub-query for raw SQL. */
export function userNameOf(db: TenantDb, idColumn: string): Knex.Raw {
  return db.raw('(select user_name from ?? where id = ??)', [db.ref('persons'), idColumn]);
}

/** Ids of the persons who belong to any of the organisations (ids, or a sub-query of ids). */
export function personsInOrganisations(db: TenantDb, organisationIds: readonly number[] | Knex.Raw | Knex.QueryBuilder): Knex.QueryBuilder {
  return db
    .table('persons')
    .select('id')
    .whereIn('organisation_id', organisationIds as any);
}

/** Ids of the organisations with these ids or these external ids. */
export function organisationsNamed(db: TenantDb, ids: readonly number[], externalIds: readonly string[]): Knex.QueryBuilder {
  return db
    .table('organisations')
    .select('id')
    .where((w) => {
      w.whereIn('id', [...ids]).orWhereIn('extern_organisation_id', [...externalIds]);
    });
}

/** The person with this user name (no row: none), the columns asked for: e.g. a CTE an INSERT ... SELECT reads. */
export function personNamed(db: TenantDb, userName: string, columns: readonly string[]): Knex.QueryBuilder {
  return db.table('persons').select(columns).where('user_name', userName);
}

/** The persons whose user name is among `userNames` (a sub-query of user names, e.g. from a CTE), the columns asked for. */
export function personsNamedIn(db: TenantDb, userNames: Knex.Raw, columns: readonly string[]): Knex.QueryBuilder {
  return db
    .table('persons')
    .select(columns)
    .whereIn('user_name', userNames as any);
}

/**
 * Narrows a query that joined persons as `alias` (joinPersons) to the persons in `state`: active
 * (not deactivated, the default of every list), deactivated, or all. For `q.modify(...)`.
 */
export function inPersonState(alias: string, state: PersonState = 'active'): (q: Knex.QueryBuilder) => void {
  return (q) => {
    if (state === 'active') q.whereNull(`${alias}.deactivated_at`);
    else if (state === 'deactivated') q.whereNotNull(`${alias}.deactivated_at`);
  };
}

/** Ids of the deactivated persons, a self-contained sub-query (e.g. `whereNotIn('pc.person_id', ...)`: reminders leave them out). */
export function deactivatedPersons(db: TenantDb): Knex.QueryBuilder {
  return db.table('persons').select('id').whereNotNull('deactivated_at');
}
