import type { Knex } from 'knex';

/**
 * The tenant's security event log. Append-only by construction: a trigger refuses UPDATE and
 * DELETE, so no code path (nor a mistaken query) can rewrite history. The one sanctioned
 * exception is erasure of a person (GDPR), which sets `app.audit_erasure = 'on'` for its
 * own transaction only (`set local`).
 */
export async function up(trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('audit_log', (t) => {
    t.bigIncrements('audit_id');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    t.text('type').notNullable();
    t.text('actor').notNullable();
    t.text('subject');
    t.text('ip');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.index(['at']);
    t.index(['type', 'at']);
    t.index(['actor']);
    t.index(['subject']);
  });
  await trx.raw(`
    create function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      if coalesce(current_setting('app.audit_erasure', true), '') = 'on' then
        return case when tg_op = 'DELETE' then old else new end;
      end if;
      raise exception 'audit_log is append-only';
    end $$`);
  await trx.raw(`
    create trigger audit_log_no_rewrite before update or delete on audit_log
      for each row execute function audit_log_append_only()`);
}
