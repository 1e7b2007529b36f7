import type { Knex } from 'knex';

/**
 * Whether a tenant's last migration failed. Such a tenant answers 503 until a later
 * migration succeeds, so it is never served by code newer than its schema.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.alterTable('tenants', (t) => {
    t.timestamp('migration_failed_at', { useTz: true });
    t.text('migration_error');
  });
}
