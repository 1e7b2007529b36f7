import type { Client } from 'pg';
import type { CatalogTable } from '../archive/schema-catalog';

/** SQLSTATE of a write refused while a tenant is being switched to another cluster (see write-pause.ts). */
export const WRITE_PAUSED_SQLSTATE = 'TM001';

/** Trigger names on the tenant's tables while it moves; nothing else uses these names. */
export const CAPTURE_TRIGGER = 'zz_tenant_move_capture';
export const CAPTURE_STATEMENT_TRIGGER = 'zz_tenant_move_capture_stmt';
export const FENCE_TRIGGER = 'aa_tenant_move_fence';

const id = (c: Client, name: string) => c.escapeIdentifier(name);
const lit = (c: Client, value: string) => c.escapeLiteral(value);

/**
 * The helper schema `tenant_moves` on the source cluster: a change log (unlogged: it only
 * lives for one move, and a crash of the cluster fails the move anyway) and two trigger
 * functions. `capture` logs the primary key of every row written while the copy runs (a
 * statement-level entry without key for TRUNCATE and for tables without a primary key: those
 * are copied again whole); `fence` refuses every write once the copy is final.
 */
export async function installMoveHelpers(c: Client): Promise<void> {
  await c.query(`
    create schema if not exists tenant_moves;
    create unlogged table if not exists tenant_moves.changes (schema_name text not null, table_name text not null, pk jsonb);
    create index if not exists changes_by_table on tenant_moves.changes (schema_name, table_name);
    create or replace function tenant_moves.capture() returns trigger language plpgsql as $$
    declare
      k jsonb;
      i int;
    begin
      if tg_level = 'STATEMENT' then
        insert into tenant_moves.changes values (tg_table_schema, tg_table_name, null);
        return null;
      end if;
      if tg_op in ('UPDATE', 'DELETE') then
        k := '[]';
        for i in 0 .. tg_nargs - 1 loop k := k || jsonb_build_array(to_jsonb(old) -> tg_argv[i]); end loop;
        insert into tenant_moves.changes values (tg_table_schema, tg_table_name, k);
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        k := '[]';
        for i in 0 .. tg_nargs - 1 loop k := k || jsonb_build_array(to_jsonb(new) -> tg_argv[i]); end loop;
        insert into tenant_moves.changes values (tg_table_schema, tg_table_name, k);
      end if;
      return null;
    end $$;
    create or replace function tenant_moves.fence() returns trigger language plpgsql as $$
    begin
      raise exception 'tenant schema % is being moved to another database cluster: writes pause for a few seconds', tg_table_schema
        using errcode = '${WRITE_PAUSED_SQLSTATE}';
    end $$;`);
}

/** Statements that start logging every write to the tenant's tables (run under the tables' locks). */
export function captureTriggerSql(c: Client, schema: string, tables: CatalogTable[]): string {
  return tables
    .map((t) => {
      const on = `${id(c, schema)}.${id(c, t.name)}`;
      if (!t.primaryKey.length) {
        return `create trigger ${CAPTURE_STATEMENT_TRIGGER} after insert or update or delete or truncate on ${on} for each statement execute function tenant_moves.capture();`;
      }
      const args = t.primaryKey.map((k) => lit(c, k)).join(', ');
      return (
        `create trigger ${CAPTURE_TRIGGER} after insert or update or delete on ${on} for each row execute function tenant_moves.capture(${args});` +
        `create trigger ${CAPTURE_STATEMENT_TRIGGER} after truncate on ${on} for each statement execute function tenant_moves.capture();`
      );
    })
    .join('\n');
}

/** Statements that refuse every write to the tenant's tables with WRITE_PAUSED_SQLSTATE. */
export function fenceTriggerSql(c: Client, schema: string, tables: CatalogTable[]): string {
  return tables
    .map(
      (t) =>
        `create trigger ${FENCE_TRIGGER} before insert or update or delete or truncate on ${id(c, schema)}.${id(c, t.name)} for each statement execute function tenant_moves.fence();`,
    )
    .join('\n');
}

/** Removes what a move put on the tenant's tables (capture, fence or both) and its change log. */
export async function removeMoveTriggers(c: Client, schema: string, tables: CatalogTable[], which: 'capture' | 'fence' | 'all' = 'all'): Promise<void> {
  const names =
    which === 'capture'
      ? [CAPTURE_TRIGGER, CAPTURE_STATEMENT_TRIGGER]
      : which === 'fence'
        ? [FENCE_TRIGGER]
        : [CAPTURE_TRIGGER, CAPTURE_STATEMENT_TRIGGER, FENCE_TRIGGER];
  const sql = tables.flatMap((t) => names.map((n) => `drop trigger if exists ${n} on ${id(c, schema)}.${id(c, t.name)};`)).join('\n');
  if (sql) await c.query(sql);
  if (which !== 'fence') await c.query('delete from tenant_moves.changes where schema_name = $1', [schema]).catch(() => {});
}

/**
 * Runs fn in a transaction that holds `mode` locks on every table of the schema. The locks are
 * taken with NOWAIT and the whole attempt starts over (after a short sleep) when one is busy, so
 * the mover never waits while holding locks: it can neither deadlock with a writer nor queue
 * readers behind it. Gives up after `deadlineMs`.
 */
export async function withTableLocks<T>(
  c: Client,
  schema: string,
  tables: CatalogTable[],
  mode: 'share row exclusive' | 'exclusive',
  deadlineMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  const list = tables.map((t) => `${id(c, schema)}.${id(c, t.name)}`).join(', ');
  const until = Date.now() + deadlineMs;
  for (let attempt = 1; ; attempt++) {
    await c.query('begin');
    try {
      await c.query(`lock table ${list} in ${mode} mode nowait`);
    } catch (err) {
      await c.query('rollback');
      if ((err as { code?: string }).code !== '55P03' || Date.now() > until) {
        throw new Error(`could not lock the tenant's tables (${mode}) within ${deadlineMs} ms after ${attempt} attempts: ${(err as Error).message}`, {
          cause: err,
        });
      }
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
      continue;
    }
    try {
      const result = await fn();
      await c.query('commit');
      return result;
    } catch (err) {
      await c.query('rollback').catch(() => {});
      throw err;
    }
  }
}
