import type { Knex } from 'knex';

/**
 * A person's language (issue 39 item 3): a BCP 47 tag such as `nb`, `sv` or `en-GB`, or null when
 * not known (notices then use the tenant's `tenant.language`, else English). Checked by the
 * application (people's person input), not by a constraint, so a tag the product does not ship
 * texts for is still kept as the person's own: the notice falls back, the data stays true.
 * persons already carries the tenant_data_changed trigger, so cached reads follow.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.alterTable('persons', (t) => {
    t.text('language');
  });
}
