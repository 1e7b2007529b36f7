import type { Knex } from 'knex';

/**
 * The trace a delivery belongs to (issue 41, traces): the W3C `traceparent` of the request (or job)
 * that wrote it, so the relay and the worker can continue that trace down to the SMTP or SMS send
 * (src/platform/tracing). Null while tracing is off and for rows written before. Not data a tenant
 * reads or exports: ids of spans only.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.alterTable('message_deliveries', (t) => {
    t.text('traceparent');
  });
}
