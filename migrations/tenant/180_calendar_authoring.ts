import type { Knex } from 'knex';

/**
 * Calendar authoring (issue 35): an event's cancellation keeps its reason and moment, and a deleted
 * event leaves a tombstone for the changes feed (GET /api/changes?Type=events, `deleted: true`), as
 * deleted registrations do. Both are the courses module's.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.alterTable('events', (t) => {
    t.text('cancel_reason');
    t.timestamp('cancelled_at', { useTz: true });
  });
  await trx.schema.createTable('event_deletions', (t) => {
    t.increments('id');
    t.integer('event_id').notNullable();
    t.integer('parent_id');
    t.integer('competence_id').notNullable();
    t.text('title').notNullable();
    t.timestamp('starts_at', { useTz: true }).notNullable();
    t.timestamp('ends_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.index(['deleted_at']);
  });
}
