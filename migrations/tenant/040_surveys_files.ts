import type { Knex } from 'knex';

/** Survey answers and uploaded files (events feature). */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('survey_answers', (t) => {
    t.increments('id');
    t.integer('survey_id').notNullable().references('id').inTable('competences').onDelete('CASCADE');
    // Given by a person, or (organisation_id set, person_id null) on behalf of an organisation.
    t.integer('person_id').references('id').inTable('persons').onDelete('CASCADE');
    t.integer('organisation_id').references('id').inTable('organisations').onDelete('CASCADE');
    t.jsonb('data').notNullable();
    t.boolean('locked').notNullable().defaultTo(false);
    t.timestamp('locked_at', { useTz: true });
    t.integer('locked_by').references('id').inTable('persons').onDelete('SET NULL');
    t.integer('created_by').references('id').inTable('persons').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.index(['survey_id']);
    t.index(['person_id']);
    t.index(['organisation_id']);
  });

  await trx.schema.createTable('files', (t) => {
    t.increments('id');
    t.integer('person_id').notNullable().references('id').inTable('persons').onDelete('CASCADE');
    t.integer('uploaded_by').references('id').inTable('persons').onDelete('SET NULL');
    t.integer('event_id').references('id').inTable('events').onDelete('SET NULL');
    t.integer('survey_answer_id').references('id').inTable('survey_answers').onDelete('SET NULL');
    t.text('title');
    t.text('file_name').notNullable();
    t.text('mime_type').notNullable();
    t.bigInteger('size').notNullable();
    t.text('storage_key').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.index(['person_id']);
    t.index(['event_id']);
  });

  // Wait-list order and the overlap check read these.
  await trx.raw('create index person_events_event_created on person_events (event_id, status, created_at, id)');
}
