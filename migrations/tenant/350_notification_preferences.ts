import type { Knex } from 'knex';

/**
 * A person's notification preferences (issue 39 item 5), messaging's: per notice type
 * (src/messaging/notices/notice-types.ts) the medium it goes by, `email`, `sms`, `both` or `none`.
 * No row: the default (e-mail, else SMS). The row goes with the person (cascade; an erasure deletes
 * it too). No cached read uses it, so no tenant_data_changed trigger (migration 130).
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('notification_preferences', (t) => {
    t.integer('person_id').notNullable().references('id').inTable('persons').onDelete('CASCADE');
    t.text('notice_type').notNullable();
    t.text('medium').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.primary(['person_id', 'notice_type']);
  });
  await trx.raw(`alter table notification_preferences add constraint notification_preferences_medium check (medium in ('email', 'sms', 'both', 'none'))`);
  await replaceAuditTrigger(trx);
}

/**
 * A superuser's change of someone else's preferences is in the security log as
 * `notification_preferences.changed` with the person's user name as subject: the audit trigger of
 * migration 290 gets that type into its list of person subjects (PERSON_SUBJECT_TYPES), so the
 * entry follows the person into their export and erasure.
 */
export async function replaceAuditTrigger(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`
    create or replace function audit_log_person_ids() returns trigger language plpgsql as $$
    begin
      if new.actor_id is null and new.actor not in ('operator', 'anonymous', 'system') then
        execute format('select id from %I.persons where user_name = $1', tg_table_schema) into new.actor_id using new.actor;
      end if;
      if new.subject_id is null and new.subject is not null and new.type in (
        'login.succeeded', 'login.failed', 'login.throttled', 'login.sso', 'logout', 'password.changed', 'password.reset', 'email.changed',
        'mobile.changed', 'roles.changed', 'person.erased', 'person.deactivated', 'person.reactivated', 'manager.added', 'manager.removed',
        'participant.result_recorded', 'certificate.issued', 'calendar_feed.created', 'calendar_feed.revoked',
        'notification_preferences.changed') then
        execute format('select id from %I.persons where user_name = $1', tg_table_schema) into new.subject_id using new.subject;
      end if;
      return new;
    end $$`);
}
