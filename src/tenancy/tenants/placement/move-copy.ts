import { pipeline } from 'node:stream/promises';
import type { Client } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { CatalogSequence, CatalogTable } from '../archive/schema-catalog';

const id = (c: Client, name: string) => c.escapeIdentifier(name);
const qualified = (c: Client, schema: string, table: string) => `${id(c, schema)}.${id(c, table)}`;

/** The columns copied: every column an INSERT may name (generated ones are computed again). */
const columns = (c: Client, t: CatalogTable) => t.insertable.map((col) => id(c, col)).join(', ');

/** The key of a row as the change log writes it: a JSON array of the primary key's values. */
const keyOf = (c: Client, t: CatalogTable, alias: string) => `jsonb_build_array(${t.primaryKey.map((k) => `${alias}.${id(c, k)}`).join(', ')})`;

/**
 * Streams rows from the source cluster to the target with COPY in PostgreSQL's text format: no
 * row is parsed or held by this process (pg-copy-streams). `where` filters the source rows.
 */
export async function copyRows(src: Client, dst: Client, schema: string, t: CatalogTable, where = ''): Promise<number> {
  const cols = columns(src, t);
  const reading = src.query(copyTo(`copy (select ${cols} from ${qualified(src, schema, t.name)} t ${where}) to stdout`));
  const writing = dst.query(copyFrom(`copy ${qualified(dst, schema, t.name)} (${cols}) from stdin`));
  await pipeline(reading, writing);
  return writing.rowCount;
}

/**
 * Brings one table on the target up to the source for the rows the change log names: those
 * rows are deleted on the target and copied again (a deleted row is simply not found again).
 * A table logged without keys (TRUNCATE, no primary key) is copied again whole. The target
 * connection runs with session_replication_role = replica, so no trigger or foreign key acts.
 */
export async function copyChanges(src: Client, dst: Client, schema: string, t: CatalogTable, whole: boolean): Promise<number> {
  const target = qualified(dst, schema, t.name);
  if (whole || !t.primaryKey.length) {
    await dst.query(`delete from ${target}`);
    return copyRows(src, dst, schema, t);
  }
  const logged = `(select distinct pk from tenant_moves.changes where schema_name = ${src.escapeLiteral(schema)} and table_name = ${src.escapeLiteral(t.name)})`;
  const keys = await src.query(`select coalesce(jsonb_agg(pk), '[]') as keys from ${logged} k`);
  await dst.query(`delete from ${target} t where ${keyOf(dst, t, 't')} in (select value from jsonb_array_elements($1::jsonb))`, [
    JSON.stringify(keys.rows[0].keys),
  ]);
  return copyRows(src, dst, schema, t, `where ${keyOf(src, t, 't')} in ${logged}`);
}

/** Tables the change log names since the copy started: table -> copy it whole. */
export async function changedTables(src: Client, schema: string): Promise<Map<string, boolean>> {
  const { rows } = await src.query('select table_name, bool_or(pk is null) as whole from tenant_moves.changes where schema_name = $1 group by table_name', [
    schema,
  ]);
  return new Map(rows.map((r: { table_name: string; whole: boolean }) => [r.table_name, r.whole]));
}

export async function countRows(c: Client, schema: string, t: CatalogTable): Promise<number> {
  const { rows } = await c.query(`select count(*)::bigint as n from ${qualified(c, schema, t.name)}`);
  return Number(rows[0].n);
}

/** Every sequence of the target continues exactly where the source's stands. */
export async function copySequences(src: Client, dst: Client, schema: string, sequences: CatalogSequence[]): Promise<void> {
  for (const s of sequences) {
    const { rows } = await src.query(`select last_value::text as v, is_called from ${qualified(src, schema, s.sequence)}`);
    await dst.query('select setval($1::regclass, $2::bigint, $3)', [qualified(dst, schema, s.sequence), rows[0].v, rows[0].is_called]);
  }
}
