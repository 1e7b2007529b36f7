import type { Knex } from 'knex';

/**
 * The outbox announces itself: a delivery that needs the relay (a new row, a retried one, or one
 * set back to queued/sending by hand) sends NOTIFY outbox_pending '<schema>' on commit, from the
 * transaction that wrote it, whatever the write path (API, CLI, import, SQL). The relay listens
 * instead of polling or visiting every tenant (src/messaging/messages/outbox-wakeup.ts). Moves the relay and
 * the workers make themselves (relayed_at set, queued -> sending -> queued) send nothing; PostgreSQL
 * sends one notification per transaction and payload however many rows it wrote.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`
    create function notify_outbox_pending() returns trigger language plpgsql as $$
    begin
      perform pg_notify('outbox_pending', tg_table_schema);
      return null;
    end $$`);
  await trx.raw(`
    create trigger message_deliveries_pending_inserted after insert on message_deliveries for each row
      when (new.state in ('queued', 'sending'))
      execute function notify_outbox_pending()`);
  await trx.raw(`
    create trigger message_deliveries_pending_again after update of state, relayed_at on message_deliveries for each row
      when (new.state in ('queued', 'sending')
        and (old.state not in ('queued', 'sending') or (new.relayed_at is null and old.relayed_at is not null)))
      execute function notify_outbox_pending()`);
}
