import type { Knex } from 'knex';

/**
 * Bulk imports (issue 36, POST /api/imports): one row per import, its options, where its file
 * waits in the file store, its progress (rows done of total, batch by batch) and its outcome
 * (created / updated / unchanged / failed, the failed rows). The tenancy module's
 * (src/tenancy/imports). Nothing cached reads it, so it needs no tenant_data_changed trigger.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('imports', (t) => {
    // a random uuid: an import's id says nothing about other imports (or tenants)
    t.uuid('id').primary();
    t.text('type').notNullable();
    // queued -> running -> finished | failed
    t.text('state').notNullable().defaultTo('queued');
    t.jsonb('options').notNullable().defaultTo('{}');
    t.text('file_name').notNullable();
    t.text('file_format').notNullable();
    // the upload in the file store (the tenant's namespace) until the import ends
    t.text('file_key');
    t.integer('created_by').notNullable();
    t.integer('rows_total').notNullable().defaultTo(0);
    t.integer('rows_done').notNullable().defaultTo(0);
    t.integer('created').notNullable().defaultTo(0);
    t.integer('updated').notNullable().defaultTo(0);
    t.integer('unchanged').notNullable().defaultTo(0);
    t.integer('failed').notNullable().defaultTo(0);
    t.integer('deactivated').notNullable().defaultTo(0);
    // the failed rows' problems ({row, column, errorcode, message}), at most the first 1,000
    t.jsonb('failures').notNullable().defaultTo('[]');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.index(['created_at']);
  });
}
