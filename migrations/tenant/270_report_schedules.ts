import type { Knex } from 'knex';

/**
 * Scheduled reports (issue 38 item 4), all messaging's (src/messaging/report-schedules,
 * src/messaging/messages):
 *
 * `report_schedules`: a report (competencematrix | compliance) with its parameters, a file format, a
 * frequency (weekly + weekday 1-7 | monthly + day 1-28 or last) and a time (HH:MM, tenant's zone),
 * recipients (user names and/or the organisation's managers), and its owner: the person whose rights
 * it runs with, checked at creation and again at every run. `active_from`: no period whose time lies
 * before it is sent (set at creation and when the timing changes).
 *
 * `report_schedule_runs`: one row per (schedule, period) sent, primary key (schedule_id, period_key),
 * inserted in the transaction that writes the messages to the outbox: two scans, two worker processes
 * or a scan after a restart cannot send a period twice. `message_ids`: the messages written for it.
 *
 * `message_attachments`: a message's files (bytea, at most MAIL_ATTACHMENT_MAX_BYTES each), written in
 * the message's transaction and attached to its e-mail by the delivery; removed with the message.
 * Nothing cached reads these tables, so none needs a tenant_data_changed trigger.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('report_schedules', (t) => {
    t.increments('id').primary();
    t.text('report').notNullable();
    t.jsonb('parameters').notNullable();
    t.text('format').notNullable();
    t.text('frequency').notNullable();
    t.smallint('weekday');
    t.smallint('day');
    t.text('time').notNullable();
    t.specificType('recipient_user_names', 'text[]').notNullable().defaultTo('{}');
    t.boolean('recipient_managers').notNullable().defaultTo(false);
    t.integer('owner_id').notNullable().references('id').inTable('persons').onDelete('CASCADE');
    t.timestamp('active_from', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('last_run_at', { useTz: true });
    t.text('last_error');
    t.index(['owner_id']);
  });
  await trx.schema.createTable('report_schedule_runs', (t) => {
    t.integer('schedule_id').notNullable().references('id').inTable('report_schedules').onDelete('CASCADE');
    t.text('period_key').notNullable();
    t.specificType('message_ids', 'int[]').notNullable().defaultTo('{}');
    t.text('outcome').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.primary(['schedule_id', 'period_key']);
  });
  await trx.schema.createTable('message_attachments', (t) => {
    t.increments('id').primary();
    t.integer('message_id').notNullable().references('id').inTable('messages').onDelete('CASCADE');
    t.text('filename').notNullable();
    t.text('content_type').notNullable();
    t.integer('size').notNullable();
    t.binary('content').notNullable();
    t.index(['message_id']);
  });
}
