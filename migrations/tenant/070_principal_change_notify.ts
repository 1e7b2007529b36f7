import type { Knex } from 'knex';

/**
 * A change to what a login is made of (user name, superuser, organisation, password state)
 * or a deleted person is announced on the channel `principal_changed` as "<schema>:<id>".
 * API processes cache principals and drop them on this signal; as a trigger it covers every
 * write path (API, CLI, imports, hand-written SQL), and NOTIFY is sent only on commit.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`
    create function notify_principal_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('principal_changed', tg_table_schema || ':' || old.id);
      return null;
    end $$`);
  await trx.raw(`
    create trigger persons_principal_updated after update on persons for each row
      when (old.user_name is distinct from new.user_name
         or old.superuser is distinct from new.superuser
         or old.organisation_id is distinct from new.organisation_id
         or old.password_changed_at is distinct from new.password_changed_at
         or old.must_change_password is distinct from new.must_change_password
         or old.id is distinct from new.id)
      execute function notify_principal_changed()`);
  await trx.raw(`
    create trigger persons_principal_deleted after delete on persons for each row
      execute function notify_principal_changed()`);
}
