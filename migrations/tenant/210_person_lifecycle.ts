import type { Knex } from 'knex';

/**
 * Person lifecycle (issue 36): a person can be deactivated (a leaver) and reactivated, distinct
 * from the irreversible erase. `deactivated_at` is the moment (null: active), `deactivated_by` the
 * person who did it (kept when that person is erased: erasure keeps the row). Both are people's.
 *
 * A deactivation changes what a login is made of, so the principal_changed trigger of migration
 * 070 now also fires on `deactivated_at`: every API process drops the cached principal at once (a
 * deactivation by any write path, the bulk import or hand-written SQL too, ends access on the
 * next request). persons already announces tenant_data_changed (migration 130).
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.alterTable('persons', (t) => {
    t.timestamp('deactivated_at', { useTz: true });
    t.integer('deactivated_by').references('id').inTable('persons').onDelete('SET NULL');
  });
  await trx.raw('drop trigger persons_principal_updated on persons');
  await trx.raw(`
    create trigger persons_principal_updated after update on persons for each row
      when (old.user_name is distinct from new.user_name
         or old.superuser is distinct from new.superuser
         or old.organisation_id is distinct from new.organisation_id
         or old.password_changed_at is distinct from new.password_changed_at
         or old.must_change_password is distinct from new.must_change_password
         or old.deactivated_at is distinct from new.deactivated_at
         or old.id is distinct from new.id)
      execute function notify_principal_changed()`);
}
