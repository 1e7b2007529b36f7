import type { Knex } from 'knex';

/** The oldest undelivered delivery (outbox-age metric, relay sweeps) without reading delivered history. */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw("create index message_deliveries_pending on message_deliveries (id) where state in ('queued', 'sending')");
}
