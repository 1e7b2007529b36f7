import type { Knex } from 'knex';

/**
 * The spec's "superadmin" and "admin for the role" (GET /api/roles/[role_id]): a person flag
 * next to `superuser`, and the persons who administer a role. Rows go with their role or person.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.alterTable('persons', (t) => {
    t.boolean('superadmin').notNullable().defaultTo(false);
  });
  await trx.schema.createTable('role_admins', (t) => {
    t.integer('role_id').notNullable().references('id').inTable('roles').onDelete('CASCADE');
    t.integer('person_id').notNullable().references('id').inTable('persons').onDelete('CASCADE');
    t.primary(['role_id', 'person_id']);
    t.index(['person_id']);
  });
}
