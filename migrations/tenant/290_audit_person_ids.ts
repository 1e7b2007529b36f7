import type { Knex } from 'knex';

/**
 * Issue 40: security log entries name people by user name, which a person can change and another
 * person can take once it is free. `actor_id` and `subject_id` record the person the names stood for
 * when the entry was written, so the person export selects entries by person id and the erasure
 * rewrites every entry of the person, under former names too. Existing entries get the id of the
 * person who holds the name now (the best that is known); `subject_id` only for types whose subject
 * is a user name (PERSON_SUBJECT_TYPES in src/platform/audit/security-audit.ts, as of this migration).
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.raw('alter table audit_log add column actor_id integer, add column subject_id integer');
  await trx.raw('create index audit_log_actor_id on audit_log (actor_id)');
  await trx.raw('create index audit_log_subject_id on audit_log (subject_id)');
  // the append-only guard lets the sanctioned rewrite through for this transaction only
  await trx.raw("set local app.audit_erasure = 'on'");
  await trx.raw("update audit_log a set actor_id = p.id from persons p where p.user_name = a.actor and a.actor not in ('operator', 'anonymous', 'system')");
  await trx.raw(`update audit_log a set subject_id = p.id from persons p where p.user_name = a.subject and a.type in (
    'login.succeeded', 'login.failed', 'login.throttled', 'login.sso', 'logout', 'password.changed', 'password.reset', 'email.changed',
    'mobile.changed', 'roles.changed', 'person.erased', 'person.deactivated', 'person.reactivated', 'manager.added', 'manager.removed',
    'participant.result_recorded', 'certificate.issued', 'calendar_feed.created', 'calendar_feed.revoked')`);
  await trx.raw("set local app.audit_erasure = 'off'");
  // new entries: the trigger fills the ids from the names as they are at that moment (the kernel's writer names no people table)
  await trx.raw(`
    create function audit_log_person_ids() returns trigger language plpgsql as $$
    begin
      if new.actor_id is null and new.actor not in ('operator', 'anonymous', 'system') then
        execute format('select id from %I.persons where user_name = $1', tg_table_schema) into new.actor_id using new.actor;
      end if;
      if new.subject_id is null and new.subject is not null and new.type in (
        'login.succeeded', 'login.failed', 'login.throttled', 'login.sso', 'logout', 'password.changed', 'password.reset', 'email.changed',
        'mobile.changed', 'roles.changed', 'person.erased', 'person.deactivated', 'person.reactivated', 'manager.added', 'manager.removed',
        'participant.result_recorded', 'certificate.issued', 'calendar_feed.created', 'calendar_feed.revoked') then
        execute format('select id from %I.persons where user_name = $1', tg_table_schema) into new.subject_id using new.subject;
      end if;
      return new;
    end $$`);
  await trx.raw('create trigger audit_log_person_ids before insert on audit_log for each row execute function audit_log_person_ids()');
}
