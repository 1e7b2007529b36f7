import type { Knex } from 'knex';

/**
 * Outbound webhooks (src/messaging/webhooks): the tenant's endpoints, the events written in the
 * transaction of each change (the outbox), one delivery per event and endpoint, and every
 * attempt of a delivery (what the admin sees in GET /api/webhooks/[id]/deliveries).
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('webhook_endpoints', (t) => {
    t.increments('id');
    t.text('url').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.specificType('events', 'text[]').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    // whsec_<base64>: the HMAC key is its base64-decoded part; needed in clear to sign
    t.text('secret').notNullable();
    // after a rotation the previous secret signs too, until previous_secret_until
    t.text('previous_secret');
    t.timestamp('previous_secret_until', { useTz: true });
    // first failure since the last success; null while the endpoint answers
    t.timestamp('failing_since', { useTz: true });
    t.text('disabled_reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
  });

  await trx.schema.createTable('webhook_events', (t) => {
    t.bigIncrements('id');
    // the webhook-id header: the same for every attempt and endpoint of this event
    t.text('uid').notNullable().unique();
    t.text('type').notNullable();
    // the exact bytes that are signed and sent, so every retry carries the same body
    t.text('body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.index(['created_at']);
  });

  await trx.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id');
    t.bigInteger('event_id').notNullable().references('id').inTable('webhook_events').onDelete('CASCADE');
    t.integer('endpoint_id').notNullable().references('id').inTable('webhook_endpoints').onDelete('CASCADE');
    // pending -> sending -> delivered | failed; sending -> pending after a failed attempt
    t.text('state').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    // outbox: null until the relay has handed the job to the queue
    t.timestamp('relayed_at', { useTz: true });
    t.integer('last_status');
    t.text('last_error');
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.unique(['event_id', 'endpoint_id']);
    t.index(['endpoint_id', 'id']);
  });
  await trx.raw("create index webhook_deliveries_pending on webhook_deliveries (id) where state in ('pending', 'sending')");

  await trx.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id');
    t.bigInteger('delivery_id').notNullable().references('id').inTable('webhook_deliveries').onDelete('CASCADE');
    t.integer('endpoint_id').notNullable();
    t.integer('attempt').notNullable();
    t.integer('status_code');
    t.text('error');
    t.integer('duration_ms').notNullable();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.index(['endpoint_id', 'id']);
    t.index(['delivery_id']);
  });
}
