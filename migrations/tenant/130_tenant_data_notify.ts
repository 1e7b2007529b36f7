import type { Knex } from 'knex';

/**
 * Any committed write to the tables that cached reads are made of announces itself on the channel
 * `tenant_data_changed` with the tenant's schema as payload: one notification per transaction
 * (statement-level triggers; PostgreSQL folds identical notifications of a transaction into
 * one). API processes keep some answers (src/platform/cache/README.md) and drop a tenant's on it;
 * as triggers they cover every write path. Left out on purpose: the outbox, audit and reminder
 * tables, files, orders and survey answers, which no cached read uses and which change all the
 * time. A table added later that a cached read uses needs the same trigger.
 */
export const TENANT_DATA_TABLES = [
  'persons',
  'person_roles',
  'roles',
  'organisations',
  'organisation_managers',
  'organisation_roles',
  'role_admins',
  'competences',
  'requirements',
  'person_competences',
  'competence_groups',
  'competence_categories',
  'categories',
  'competence_attributes',
  'attributes',
  'competence_organisations',
  'events',
  'person_events',
  'event_prerequisites',
  'locations',
];

export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`
    create function notify_tenant_data_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('tenant_data_changed', tg_table_schema);
      return null;
    end $$`);
  for (const table of TENANT_DATA_TABLES) {
    await trx.raw(`create trigger ${table}_tenant_data_changed after insert or update or delete or truncate on ${table}
      for each statement execute function notify_tenant_data_changed()`);
  }
}
