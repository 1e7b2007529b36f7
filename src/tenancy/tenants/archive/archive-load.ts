import type { Knex } from 'knex';
import type { ArchiveManifest } from './tenant-archive.format';
import { ImportError } from '../tenant-importer';

export type LoadMode = 'replica' | 'owner';

/**
 * Rows go in as they were, so no trigger may act on them (the audit_log append-only guard, the
 * principal NOTIFY) and no foreign key may care about load order (self-references, cycles).
 * `session_replication_role = replica` does all of that for this transaction only, but needs a
 * superuser; otherwise the tables' own triggers are switched off (we own the fresh schema) and
 * the catalog's parents-first order has to satisfy the foreign keys.
 */
export async function disableTriggers(trx: Knex.Transaction, schema: string, tables: string[]): Promise<LoadMode> {
  try {
    await trx.transaction((sp) => sp.raw('set local session_replication_role = replica'));
    return 'replica';
  } catch {
    for (const t of tables) await trx.raw('alter table ??.?? disable trigger user', [schema, t]);
    return 'owner';
  }
}

/** Back to normal before the newer migrations run: their data changes must fire triggers as usual. */
export async function enableTriggers(trx: Knex.Transaction, schema: string, tables: string[], mode: LoadMode): Promise<void> {
  if (mode === 'replica') {
    await trx.raw('set local session_replication_role = origin');
    return;
  }
  for (const t of tables) await trx.raw('alter table ??.?? enable trigger user', [schema, t]);
}

/** Each sequence continues where the exported one stood (never below the largest loaded value). */
export async function resetSequences(trx: Knex.Transaction, schema: string, sequences: ArchiveManifest['sequences']): Promise<void> {
  for (const s of sequences) {
    const exists = await trx.raw('select to_regclass(?) as r', [`"${schema}"."${s.sequence}"`]);
    if (!exists.rows[0].r) continue;
    const max = await trx.raw('select max(??)::text as m from ??.??', [s.column, schema, s.table]);
    const top = max.rows[0].m === null ? null : BigInt(max.rows[0].m);
    const last = BigInt(s.last_value);
    const [value, called] = top !== null && top > last ? [top, true] : [last, s.is_called];
    await trx.raw('select setval(?::regclass, ?::bigint, ?)', [`"${schema}"."${s.sequence}"`, value.toString(), called]);
  }
}

/** The platform rows of a tenant in the archive (tenant_id is the new tenant's; history ids are platform-wide). */
export const PLATFORM_COLUMNS = {
  config_items: ['item_id', 'value', 'updated_at'],
  config_item_changes: ['item_id', 'changed_by', 'changed_at', 'secret', 'old_value', 'new_value'],
};

/**
 * Inserts one JSON-lines entry. PostgreSQL reads back what its row_to_json wrote, so every type
 * round-trips without a mapping here; `fixed` columns get the same value in every row.
 */
export async function insertRows(
  trx: Knex.Transaction,
  schema: string,
  table: string,
  cols: string[],
  entry: string,
  data: Buffer,
  fixed: Record<string, string | number> = {},
): Promise<number> {
  const rows = data
    .toString('utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  if (rows.length === 0) return 0;
  const names = [...Object.keys(fixed), ...cols];
  const into = names.map(() => '??').join(', ');
  const values = [...Object.keys(fixed).map(() => '?'), ...cols.map(() => '??')].join(', ');
  try {
    await trx.raw(`insert into ??.?? (${into}) overriding system value select ${values} from json_populate_recordset(null::??.??, ?::json)`, [
      schema,
      table,
      ...names,
      ...Object.values(fixed),
      ...cols,
      schema,
      table,
      `[${rows.join(',')}]`,
    ]);
  } catch (err) {
    // Data errors (bad values, broken keys, unknown columns) are the archive's fault: 420, not 500.
    if (/^(22|23|42)/.test(String((err as { code?: string }).code))) throw new ImportError(`archive: ${entry}: ${(err as Error).message}`);
    throw err;
  }
  return rows.length;
}
