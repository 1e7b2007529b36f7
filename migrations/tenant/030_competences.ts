import type { Knex } from 'knex';

/**
 * Organisational functions (a role made available in an organisation and its subtree),
 * competences restricted to organisations, and indexes for the changes feed.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('organisation_roles', (t) => {
    t.integer('organisation_id').notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.integer('role_id').notNullable().references('id').inTable('roles').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.primary(['organisation_id', 'role_id']);
    t.index(['role_id']);
  });
  // No rows for a competence: valid in the whole tenant.
  await trx.schema.createTable('competence_organisations', (t) => {
    t.integer('competence_id').notNullable().references('id').inTable('competences').onDelete('CASCADE');
    t.integer('organisation_id').notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.primary(['competence_id', 'organisation_id']);
    t.index(['organisation_id']);
  });
  await trx.schema.alterTable('person_competences', (t) => {
    // A manager's PUT on a checklist item without action: passed regardless of the item's setting.
    t.boolean('override').notNullable().defaultTo(false);
    t.index(['created_at']);
    t.index(['deleted_at']);
  });
  await trx.schema.alterTable('competences', (t) => {
    t.index(['updated_at']);
  });
}
