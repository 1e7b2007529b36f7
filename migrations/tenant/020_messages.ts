import type { Knex } from 'knex';

/** Messages to persons, their per-medium deliveries (the transactional outbox) and mailed passwords. */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('messages', (t) => {
    t.increments('id');
    // message: POST /api/messages; password: a generated password (the text is composed at send time)
    t.text('kind').notNullable().defaultTo('message');
    t.integer('sender_id').references('id').inTable('persons').onDelete('SET NULL');
    t.integer('recipient_id').notNullable().references('id').inTable('persons').onDelete('CASCADE');
    t.text('title').notNullable();
    t.text('text').notNullable();
    t.specificType('cc', 'text[]').notNullable().defaultTo('{}');
    t.text('reply_to');
    t.text('send_medium').notNullable(); // email | sms | both
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.index(['recipient_id', 'id']);
    t.index(['sender_id']);
  });

  await trx.schema.createTable('message_deliveries', (t) => {
    t.increments('id');
    t.integer('message_id').notNullable().references('id').inTable('messages').onDelete('CASCADE');
    t.text('medium').notNullable(); // email | sms
    t.text('address').notNullable(); // e-mail address or mobile number at the time of sending
    // queued -> sending -> sent | failed; sending -> queued on a temporary failure
    t.text('state').notNullable().defaultTo('queued');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.text('provider_id'); // SMTP message id or Twilio sid
    // Outbox: null until the relay has handed the job to the queue.
    t.timestamp('relayed_at', { useTz: true });
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.unique(['message_id', 'medium']);
  });
  await trx.raw('create index message_deliveries_outbox on message_deliveries (id) where relayed_at is null');

  await trx.schema.alterTable('persons', (t) => {
    // A password sent by mail: valid next to the current one until used or expired.
    t.text('pending_password_hash');
    t.timestamp('pending_password_expires_at', { useTz: true });
  });
}
