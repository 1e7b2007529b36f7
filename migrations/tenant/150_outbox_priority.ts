import type { Knex } from 'knex';

/**
 * The relay takes password mail ahead of bulk mail. It used to learn a row's kind by joining
 * every undelivered row to its message and sorting them all on each pass: with a backlog of a few
 * thousand rows that cost 15-35 ms of PostgreSQL per pass (bench, 2026-11-24). The kind is now
 * copied onto the delivery when it is written (`priority` 1: password mail), and each of the two
 * classes is read in id order from a partial index of the rows not yet relayed, and the rows
 * due for redelivery from one of the rows in flight by relay time, so a pass reads about the rows
 * it moves. Rows written before this migration and not finished get their priority
 * here (an archive imported from before it too: newer migrations run over the loaded rows).
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw('alter table message_deliveries add column priority smallint not null default 0');
  await trx.raw(`
    update message_deliveries d set priority = 1
      from messages m
     where m.id = d.message_id and m.kind = 'password' and (d.relayed_at is null or d.state in ('queued', 'sending'))`);
  await trx.raw('create index message_deliveries_outbox_priority on message_deliveries (id) where relayed_at is null and priority > 0');
  // rows relayed long ago and still not done (redelivery): a range of this index, not every row in flight
  await trx.raw("create index message_deliveries_inflight_relayed on message_deliveries (relayed_at) where state in ('queued', 'sending')");
}
