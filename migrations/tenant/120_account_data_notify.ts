import type { Knex } from 'knex';

/**
 * Any committed write to what a person's own view is made of (persons, person_roles, roles,
 * organisations, organisation_managers) announces itself on the channel `account_data_changed`
 * with the tenant's schema as payload: one notification per transaction (statement-level
 * triggers; PostgreSQL folds identical notifications of a transaction into one). API processes
 * keep the rendered GET /api/person of logged-in persons and drop a tenant's entries on it
 * (src/persons/own-view-cache.ts); as triggers they cover every write path.
 */
const TABLES = ['persons', 'person_roles', 'roles', 'organisations', 'organisation_managers'];

export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`
    create function notify_account_data_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('account_data_changed', tg_table_schema);
      return null;
    end $$`);
  for (const table of TABLES) {
    await trx.raw(`create trigger ${table}_account_data_changed after insert or update or delete or truncate on ${table}
      for each statement execute function notify_account_data_changed()`);
  }
}
