import type { Knex } from 'knex';

/**
 * A password mail may be sent more than once (at-least-once delivery); every password made
 * for the same delivery stays usable, so the earlier hashes of that delivery are kept.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw('alter table persons add column pending_password_delivery_id bigint, add column pending_password_earlier text[]');
}
