import type { Knex } from 'knex';

export interface Migration {
  name: string;
  up(trx: Knex.Transaction): Promise<void>;
}

export interface MigrateResult {
  schema: string;
  applied: string[];
}

/** A statement as knex sent it to PostgreSQL: `$1`.. placeholders and their values. */
export interface SentStatement {
  sql: string;
  bindings: readonly unknown[];
}

/**
 * Brings one schema up to date in a single transaction: the search_path is set local
 * to the transaction, so migrations write unqualified names, and an advisory lock keyed
 * on the schema serialises concurrent runners. knex's own migrator commits per file,
 * which would leave a tenant half-migrated when a later file fails.
 * `onStatement` is told of every statement sent inside the transaction (BEGIN and COMMIT not
 * included), in order: recorded-migrations.ts replays them to make more schemas alike.
 */
export async function migrateSchema(
  knex: Knex,
  schema: string,
  migrations: Migration[],
  onStatement?: (statement: SentStatement) => void,
): Promise<MigrateResult> {
  return knex.transaction(async (trx) => {
    let recording = !!onStatement;
    if (onStatement) trx.on('query', (q: { sql: string; bindings?: unknown[] }) => recording && onStatement({ sql: q.sql, bindings: q.bindings ?? [] }));
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`migrate:${schema}`]);
    await trx.raw('create schema if not exists ??', [schema]);
    await trx.raw("select set_config('search_path', ?, true)", [schema]);
    await trx.raw('create table if not exists ??.schema_migrations (name text primary key, applied_at timestamptz not null default now())', [schema]);
    const done = new Set<string>((await trx.withSchema(schema).table('schema_migrations').select('name')).map((r: { name: string }) => r.name));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      try {
        await m.up(trx);
      } catch (err) {
        throw new Error(`${schema}: migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      await trx.withSchema(schema).table('schema_migrations').insert({ name: m.name });
      applied.push(m.name);
    }
    recording = false;
    return { schema, applied };
  });
}

/** Latest applied migration of a schema, or null when it has none. */
export async function schemaVersion(knex: Knex, schema: string): Promise<string | null> {
  const exists = await knex.raw('select to_regclass(?) as t', [`${schema}.schema_migrations`]);
  if (!exists.rows[0].t) return null;
  const row = await knex.withSchema(schema).table('schema_migrations').max('name as name').first();
  return row?.name ?? null;
}
