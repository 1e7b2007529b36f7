import type { Knex } from 'knex';

/**
 * The webhook outbox announces itself, as the message outbox does (120_outbox_notify): a
 * delivery that needs the relay (a new row, or one set back to pending/sending by hand, or whose
 * relayed_at is cleared) sends NOTIFY webhook_pending '<schema>' on commit, from the transaction
 * that wrote it, whatever the write path. The webhook relay listens instead of visiting every
 * tenant (src/messaging/outbox/tenant-relay.ts). Moves the relay and the workers make themselves
 * (relayed_at set, pending -> sending -> pending | delivered | failed) send nothing; PostgreSQL
 * sends one notification per transaction and payload however many rows it wrote. A channel of
 * its own, not outbox_pending: a listener receives only the channels it listens to, so mail
 * traffic never wakes the webhook relay and the other way round. The sweep's probe uses the
 * partial index webhook_deliveries_pending of migration 110.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`
    create function notify_webhook_pending() returns trigger language plpgsql as $$
    begin
      perform pg_notify('webhook_pending', tg_table_schema);
      return null;
    end $$`);
  await trx.raw(`
    create trigger webhook_deliveries_pending_inserted after insert on webhook_deliveries for each row
      when (new.state in ('pending', 'sending'))
      execute function notify_webhook_pending()`);
  await trx.raw(`
    create trigger webhook_deliveries_pending_again after update of state, relayed_at on webhook_deliveries for each row
      when (new.state in ('pending', 'sending')
        and (old.state not in ('pending', 'sending') or (new.relayed_at is null and old.relayed_at is not null)))
      execute function notify_webhook_pending()`);
}
