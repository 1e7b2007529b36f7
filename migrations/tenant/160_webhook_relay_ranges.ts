import type { Knex } from 'knex';

/**
 * The webhook relay's pass used to read its rows from webhook_deliveries_pending (every delivery
 * pending or sending, in id order) and filter out those already relayed and not overdue: with a
 * receiver down, every delivery waiting for its retry was read (or the table scanned and sorted)
 * on every pass, although a pass takes only new rows and the few whose job was lost: 0.2 ms at
 * 1,000 waiting, 0.55 ms at 5,000 and 2.2 ms at 20,000 of PostgreSQL per pass, 13.5 ms with
 * 100,000 delivered rows in front (measured 2026-11-24, src/messaging/webhooks/README.md); now
 * about 0.2 ms at every size. Each of the two kinds of rows a pass takes now has a partial index
 * read in the order it is taken, with a LIMIT: new rows (not relayed yet) by id, relayed rows in
 * flight by next_attempt_at (those overdue by OUTBOX_REDELIVER_AFTER_SECONDS are a range at its
 * start).
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw("create index webhook_deliveries_outbox on webhook_deliveries (id) where relayed_at is null and state in ('pending', 'sending')");
  await trx.raw(
    "create index webhook_deliveries_inflight_due on webhook_deliveries (next_attempt_at, id) where relayed_at is not null and state in ('pending', 'sending')",
  );
}
