import type { Knex } from 'knex';

/**
 * Results and attendance (issue 36, item 1).
 *
 * - `event_results` (courses): the result of one sign-on (`person_event_id`, the person's place on
 *   the course event) at one event: the course event itself or one of its module events (a module
 *   event's participants are its course event's signed-on persons, so a module result hangs on the
 *   course sign-on too). `met` attended, `passed` 0-100, `reached` whether `passed` reached the pass
 *   mark of the event's competence when it was recorded, `grade`, `comments`, who recorded it and
 *   when. person_events.passed (boolean) stays: for the course event it is kept equal to `reached`.
 * - `competences.pass_mark` (catalogue): 0-100, null = 100.
 * - `person_competences.person_event_id` (catalogue): the sign-on whose results created the
 *   registration, so a correction removes exactly what the result created and nothing else.
 *
 * Cache invalidation: event_results gets the tenant_data_changed trigger of migration 130 (the
 * participant reads are not cached today; a cached read added later cannot miss a result);
 * competences and person_competences have it already.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.alterTable('competences', (t) => {
    t.smallint('pass_mark');
  });
  await trx.raw('alter table competences add constraint competences_pass_mark_range check (pass_mark between 0 and 100)');

  await trx.schema.createTable('event_results', (t) => {
    t.bigIncrements('id');
    t.integer('person_event_id').notNullable().references('id').inTable('person_events').onDelete('CASCADE');
    t.integer('event_id').notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.boolean('met');
    t.smallint('passed');
    t.boolean('reached');
    t.double('grade');
    t.text('comments');
    t.integer('recorded_by').references('id').inTable('persons').onDelete('SET NULL');
    t.timestamp('recorded_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.unique(['person_event_id', 'event_id']);
    t.index(['event_id']);
  });
  await trx.raw('alter table event_results add constraint event_results_passed_range check (passed between 0 and 100)');
  await trx.raw(`create trigger event_results_tenant_data_changed after insert or update or delete or truncate on event_results
    for each statement execute function notify_tenant_data_changed()`);

  await trx.schema.alterTable('person_competences', (t) => {
    t.integer('person_event_id').references('id').inTable('person_events').onDelete('SET NULL');
  });
  await trx.raw('create index person_competences_person_event on person_competences (person_event_id) where person_event_id is not null');
}
