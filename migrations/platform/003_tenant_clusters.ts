import type { Knex } from 'knex';

/**
 * Where each tenant's schema lives (issue 22): `main` is DATABASE_URL, other names come from
 * TENANT_DATABASE_URLS. `tenant_moves` records every move of a tenant between clusters (state,
 * figures, error), so a move is visible while it runs and afterwards.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.alterTable('tenants', (t) => {
    t.text('cluster').notNullable().defaultTo('main');
    t.index(['cluster']);
  });
  await trx.schema.createTable('tenant_moves', (t) => {
    t.bigIncrements('id');
    t.integer('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.text('from_cluster').notNullable();
    t.text('to_cluster').notNullable();
    // copying | paused | switched | done | failed
    t.text('state').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.integer('write_pause_ms');
    t.bigInteger('rows_copied');
    t.text('error');
    t.index(['tenant_id', 'id']);
  });
}
