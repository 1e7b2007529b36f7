import type { Knex } from 'knex';

/**
 * The tenant's words and HTML mail (issue 39 items 3 and 4).
 *
 * `message_templates` (messaging's): a superuser's override of a notice's subject, text and (optional)
 * HTML body for one language (PUT /api/messagetemplates/[type]); Liquid templates rendered when the
 * notice is written. One row per (type, language); DELETE goes back to the shipped text.
 * `updated_by` is the superuser's user name as it was (like config_item_changes.changed_by).
 * Part of the tenant archive like every table. No cached read uses it: no tenant_data_changed trigger.
 *
 * `messages.html` (messaging's): the rendered HTML part of a notice e-mail (multipart/alternative
 * with `text`, which stays the plain text and the SMS body); null for messages without one.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('message_templates', (t) => {
    t.text('type').notNullable();
    t.text('language').notNullable();
    t.text('subject').notNullable();
    t.text('text').notNullable();
    t.text('html');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.text('updated_by');
    t.primary(['type', 'language']);
  });
  await trx.schema.alterTable('messages', (t) => {
    t.text('html');
  });
}
