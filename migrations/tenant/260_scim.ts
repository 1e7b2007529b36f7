import type { Knex } from 'knex';

/**
 * SCIM 2.0 provisioning (issue 37, src/identity/scim): what a SCIM resource holds beyond the
 * persons and roles rows it maps to. Owned by the identity module.
 * - api_clients.scim_default_organisation_id: the organisation a person created or updated by this
 *   client's SCIM calls lands in when its enterprise `department` names no organisation (by
 *   extern_organisation_id, then by name). Null: such persons keep their organisation (a new one gets none).
 * - scim_users: per person, the enterprise extension's `manager` (the manager's SCIM id as the
 *   identity provider sent it: stored and answered, no organisation_managers row).
 * - scim_groups: per role, the group's `externalId`. A role is a SCIM Group whether or not it
 *   has a row here; `created_by_scim` says whether DELETE /Groups may delete the role itself.
 * persons_user_name_lower serves SCIM's case-insensitive userName filter and uniqueness check.
 * Nothing cached reads them (SCIM answers are never cached), so no tenant_data_changed trigger.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.alterTable('api_clients', (t) => {
    t.integer('scim_default_organisation_id').references('id').inTable('organisations').onDelete('SET NULL');
  });
  // SCIM compares userName case-insensitively (a provider's every lookup and create asks it)
  await trx.raw('create index persons_user_name_lower on persons (lower(user_name))');
  await trx.schema.createTable('scim_users', (t) => {
    t.integer('person_id').primary().references('id').inTable('persons').onDelete('CASCADE');
    t.text('manager');
  });
  await trx.schema.createTable('scim_groups', (t) => {
    t.integer('role_id').primary().references('id').inTable('roles').onDelete('CASCADE');
    t.text('external_id');
    t.boolean('created_by_scim').notNullable().defaultTo(false);
  });
}
