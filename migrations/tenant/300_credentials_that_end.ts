import type { Knex } from 'knex';

/**
 * Credentials that end (issue 40, item 3). A mailed (pending) password is tied to the password,
 * e-mail and mobile the person had when it was asked for:
 *  - `credentials_changed_at` is when one of them last changed (null: never since this migration);
 *  - a change of any of them clears the pending password columns in the same row update, unless
 *    the update is itself the pending password being used (its columns change with it).
 * As a trigger it covers every write path (PUT /api/persons, the bulk import, erasure, SQL).
 * A mail asked for before `credentials_changed_at` gets no password at send time (PendingPasswords.issue).
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw('alter table persons add column credentials_changed_at timestamptz');
  await trx.raw(`
    create function persons_credentials_changed() returns trigger language plpgsql as $$
    begin
      new.credentials_changed_at := clock_timestamp();
      if new.pending_password_hash is not distinct from old.pending_password_hash then
        new.pending_password_hash := null;
        new.pending_password_expires_at := null;
        new.pending_password_delivery_id := null;
        new.pending_password_earlier := null;
      end if;
      return new;
    end $$`);
  await trx.raw(`
    create trigger persons_credentials_changed before update of password_hash, email, mobile on persons for each row
      when (old.password_hash is distinct from new.password_hash
         or old.email is distinct from new.email
         or old.mobile is distinct from new.mobile)
      execute function persons_credentials_changed()`);
}
