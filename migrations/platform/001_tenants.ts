import type { Knex } from 'knex';

export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('tenants', (t) => {
    t.increments('id');
    t.text('slug').notNullable().unique();
    t.text('name').notNullable();
    t.text('schema_name').notNullable().unique();
    t.text('status').notNullable().defaultTo('active'); // active | suspended
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
  });
  await trx.schema.createTable('tenant_hosts', (t) => {
    t.text('host').primary();
    t.integer('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.index(['tenant_id']);
  });
  await trx.schema.createTable('config_items', (t) => {
    t.integer('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.text('item_id').notNullable();
    t.jsonb('value');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.primary(['tenant_id', 'item_id']);
  });
  await trx.schema.createTable('config_item_changes', (t) => {
    t.bigIncrements('id');
    t.integer('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.text('item_id').notNullable();
    t.text('changed_by').notNullable(); // user_name, or "import" / "operator"
    t.timestamp('changed_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.boolean('secret').notNullable().defaultTo(false);
    t.jsonb('old_value'); // null for secrets
    t.jsonb('new_value'); // null for secrets
    t.index(['tenant_id', 'item_id', 'changed_at']);
  });
}
