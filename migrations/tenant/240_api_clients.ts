import type { Knex } from 'knex';

/**
 * API clients (issue 37, OAuth 2.0 client credentials): one row per client of the tenant, the
 * identity module's (src/identity/apiclients). The secret is kept only as the SHA-256 of a 256-bit
 * random secret; `secret_version` grows on every rotation, and an access token names the version
 * it was issued under, so a rotation (or the row's deletion) ends its tokens at once. Nothing
 * cached reads it, so it needs no tenant_data_changed trigger.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('api_clients', (t) => {
    t.increments('id').primary();
    // cli_ + 24 hex: random, says nothing about other clients (or tenants)
    t.text('client_id').notNullable().unique();
    t.text('name').notNullable();
    t.specificType('scopes', 'text[]').notNullable();
    // whose rights the client has on /api (required for api.read / api.write)
    t.integer('run_as_person_id');
    t.text('secret_hash').notNullable();
    t.integer('secret_version').notNullable().defaultTo(1);
    t.timestamp('secret_rotated_at', { useTz: true });
    t.integer('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('last_used_at', { useTz: true });
  });
}
