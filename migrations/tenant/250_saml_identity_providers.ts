import type { Knex } from 'knex';

/**
 * SAML 2.0 identity providers (issue 37): type=saml rows keep the IdP metadata as given
 * (metadata_xml, or the metadata_url it was fetched from once at save) and what sign-in needs
 * from it: the IdP's entity id (in issuer), its SSO URL (HTTP-Redirect binding) and its signing
 * certificates (base64 DER, as in the metadata). A SAML provider has no client id. Nothing cached
 * reads the table, so it still needs no tenant_data_changed trigger.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  // one statement with an effect (knex's .alter() also emits a type change and a drop default that change nothing)
  await trx.raw('alter table identity_providers alter column client_id drop not null');
  await trx.schema.alterTable('identity_providers', (t) => {
    t.text('metadata_xml');
    t.text('metadata_url');
    t.text('sso_url');
    t.jsonb('certificates').notNullable().defaultTo('[]');
  });
}
