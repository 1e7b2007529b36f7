import type { Knex } from 'knex';

/**
 * Identity providers of the tenant (issue 37, POST /api/identityproviders): OIDC sign-in per
 * tenant. The identity module's (src/identity/providers). The id is a random uuid, so a provider id
 * says nothing about other tenants' providers (another tenant's id is simply unknown here).
 * client_secret is write-only for the API (answers say whether it is set). Nothing cached reads
 * the table, so it needs no tenant_data_changed trigger.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('identity_providers', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    // oidc (saml: a later change)
    t.text('type').notNullable();
    t.text('issuer').notNullable();
    t.text('client_id').notNullable();
    t.text('client_secret');
    t.text('scopes').notNullable().defaultTo('openid email profile');
    t.text('match_claim').notNullable().defaultTo('email');
    // email | user_name | extern_person_id
    t.text('match_field').notNullable().defaultTo('email');
    t.boolean('jit').notNullable().defaultTo(false);
    t.integer('jit_organisation_id');
    t.jsonb('jit_role_ids').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
  });
}
