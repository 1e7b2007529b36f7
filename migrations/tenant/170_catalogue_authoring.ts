import type { Knex } from 'knex';

/**
 * Catalogue authoring (issue 35): a deleted competence leaves a tombstone, so the changes feed
 * (GET /api/changes?Type=competences) can list the deletion with `deleted: true` after the row is
 * gone. One row per deleted competence (its modules, checklist items or questions too). The
 * changes feed is no cached read, but the table gets the tenant_data_changed trigger of migration
 * 130 all the same, so a cached read added later cannot miss a deletion.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('competence_deletions', (t) => {
    t.bigIncrements('id');
    // no foreign key: the competence is gone
    t.integer('competence_id').notNullable();
    t.integer('parent_id');
    t.text('title').notNullable();
    t.text('type').notNullable();
    t.integer('competence_group_id');
    t.timestamp('deleted_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.index(['deleted_at']);
  });
  await trx.raw(`create trigger competence_deletions_tenant_data_changed after insert or update or delete or truncate on competence_deletions
    for each statement execute function notify_tenant_data_changed()`);
}
