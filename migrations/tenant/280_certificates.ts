import type { Knex } from 'knex';

/**
 * Certificates and verifiable credentials (issue 38 items 6 and 7).
 *
 * `certificates` (the catalogue's, src/catalogue/certificates): one verification code per
 * registration (person_competences row), issued on the first download and the same on every later
 * one. The code is 192 random bits, base64url. The status a verifier sees is computed from the
 * registration (deleted: revoked; its dates: valid or expired) and `revoked_at` (set when the person
 * is erased). The row stays when the registration is deleted.
 *
 * `credential_keys` (the identity module's, src/identity/credentialkeys): the tenant's Ed25519
 * signing keys for Open Badges credentials. One active key (retired_at null); a rotated key stays
 * published in /.well-known/jwks.json while a credential it signed may still be valid
 * (`signed_until`, or forever once it signed one without an end: `signed_unbounded`).
 * `private_key` (PKCS#8 PEM) is a secret column of the tenant archive (blanked without secrets=1).
 * Nothing cached reads either table, so neither needs a tenant_data_changed trigger.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('certificates', (t) => {
    t.increments('id').primary();
    t.text('code').notNullable().unique();
    t.integer('person_competence_id').notNullable().unique().references('id').inTable('person_competences');
    t.integer('person_id').notNullable();
    t.integer('competence_id').notNullable();
    t.integer('issued_by');
    t.timestamp('issued_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    // person_erased (a deleted registration is revoked by its own deleted_at)
    t.text('revoked_reason');
    t.index(['person_id']);
  });
  await trx.schema.createTable('credential_keys', (t) => {
    t.increments('id').primary();
    t.text('kid').notNullable().unique();
    t.jsonb('public_jwk').notNullable();
    t.text('private_key');
    t.integer('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('retired_at', { useTz: true });
    t.timestamp('signed_until', { useTz: true });
    t.boolean('signed_unbounded').notNullable().defaultTo(false);
  });
  // at most one active key: two first uses at once create one (the loser reads the winner's)
  await trx.raw('create unique index credential_keys_one_active on credential_keys ((true)) where retired_at is null');
}
