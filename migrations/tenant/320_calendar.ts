import type { Knex } from 'knex';

/**
 * Calendar invites and personal calendar feeds (issue 39 items 1 and 2).
 *
 * `events.calendar_sequence` (courses'): the iCalendar SEQUENCE of the event's invites, raised by
 * one each time the event's start, end or location changes (PUT /api/events), so an update
 * supersedes the invite a calendar already holds (RFC 5546: same UID, higher SEQUENCE).
 *
 * `messages.calendar` (messaging's): the iCalendar object (with its METHOD, REQUEST or CANCEL) an
 * e-mail carries as its text/calendar alternative and .ics attachment. Written with the message in
 * the change's transaction, so the invite shows the event as the change left it, whatever changes
 * after; null for every other message.
 *
 * `calendar_feeds` (courses'): a person's personal feed token, one per person. Only the SHA-256 of
 * the token is stored (`token_hash`, a secret column of the tenant archive); the token itself is
 * shown once, when it is made. The row goes with the person (cascade) and with DELETE.
 * No cached read uses these, so no tenant_data_changed trigger is added (events already has one).
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.alterTable('events', (t) => {
    t.integer('calendar_sequence').notNullable().defaultTo(0);
  });
  await trx.schema.alterTable('messages', (t) => {
    t.text('calendar');
  });
  await trx.schema.createTable('calendar_feeds', (t) => {
    t.integer('person_id').primary().references('id').inTable('persons').onDelete('CASCADE');
    // null: blanked by an archive exported without secrets (a dead feed; GET makes a new token)
    t.text('token_hash').unique();
    t.integer('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
  });
}
