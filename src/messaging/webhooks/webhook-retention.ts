import type { Knex } from 'knex';
import { forEachMigratedChunk, type ScanTenant } from '../outbox/pending-scan';

/** A prune waits this long for a lock (a tenant being moved, say), then gives up until the next sweep. */
const LOCK_TIMEOUT = '5s';
const STATEMENT_TIMEOUT = '120s';

/**
 * Drops the events created before `before` (their deliveries and attempts go with them, ON DELETE
 * CASCADE) of these tenants, all on the cluster of `knex`: one statement per 200 tenants, each
 * part a probe of the index on webhook_events.created_at, so tenants with nothing to drop cost a
 * few index pages. Returns how many events went. Runs at the webhook relay's sweep (hourly).
 */
export async function dropOldWebhookEvents(knex: Knex, tenants: readonly ScanTenant[], before: Date): Promise<number> {
  let dropped = 0;
  await forEachMigratedChunk(knex, tenants, 'webhook_events', async (parts) => {
    const ctes = parts.map((_, i) => `d${i} as (delete from ??.webhook_events where created_at < ? returning 1)`).join(',\n');
    const total = parts.map((_, i) => `(select count(*) from d${i})`).join(' + ');
    await knex.transaction(async (trx) => {
      await trx.raw(`set local lock_timeout = '${LOCK_TIMEOUT}'; set local statement_timeout = '${STATEMENT_TIMEOUT}'`);
      const { rows } = await trx.raw(
        `with ${ctes}\nselect ${total} as n`,
        parts.flatMap((t) => [t.schema, before]),
      );
      dropped += Number(rows[0].n);
    });
  });
  return dropped;
}
