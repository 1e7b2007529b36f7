import type { Knex } from 'knex';

/**
 * Expiry reminders: one row per (registration, threshold), written in the transaction that puts
 * the reminder message into the outbox, so scans that overlap, repeat or die halfway cannot
 * remind twice. A renewal is a new person_competences row and so starts afresh.
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('expiry_reminders', (t) => {
    t.bigInteger('person_competence_id').notNullable().references('id').inTable('person_competences').onDelete('CASCADE');
    t.integer('threshold_days').notNullable();
    // the reminder sent for it; null when the person had neither e-mail nor mobile (skipped, logged)
    t.integer('message_id').references('id').inTable('messages').onDelete('SET NULL');
    t.integer('days_left').notNullable();
    t.date('valid_until').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.primary(['person_competence_id', 'threshold_days']);
    t.index(['message_id']);
  });
  // The scan looks at current registrations expiring within the largest threshold.
  await trx.raw(
    'create index person_competences_expiring on person_competences (valid_until) where superseded_at is null and deleted_at is null and valid_until is not null',
  );
}
