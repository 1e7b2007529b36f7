import type { Knex } from 'knex';

/** Tenants per statement: one UNION ALL of index probes. */
const CHUNK = 200;

export interface ScanTenant {
  id: number;
  schema: string;
}

/** An outbox table and the states of its rows that still need the relay or a worker. */
export interface OutboxTable {
  table: string;
  /** Each probe `state in (...)` must match a partial index with the same predicate. */
  pendingStates: readonly string[];
}

/**
 * Which of these schemas have `table` (a schema not migrated that far yet has not): one
 * statement, a catalog lookup by name per schema.
 */
export async function migratedSchemas(knex: Knex, schemas: readonly string[], table: string): Promise<Set<string>> {
  if (!schemas.length) return new Set();
  const list = schemas.map(() => '?').join(', ');
  const { rows } = await knex.raw(`select s from unnest(array[${list}]::text[]) s where to_regclass(format('%I.%I', s, ?::text)) is not null`, [...schemas, table]);
  return new Set((rows as { s: string }[]).map((r) => r.s));
}

/** Runs `each` over the tenants in chunks of CHUNK, each chunk cut down to the schemas that have `table`. */
export async function forEachMigratedChunk(
  knex: Knex,
  tenants: readonly ScanTenant[],
  table: string,
  each: (chunk: ScanTenant[]) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < tenants.length; i += CHUNK) {
    const chunk = tenants.slice(i, i + CHUNK);
    const migrated = await migratedSchemas(knex, chunk.map((t) => t.schema), table);
    const parts = chunk.filter((t) => migrated.has(t.schema));
    if (parts.length) await each(parts);
  }
}

/**
 * Which of these tenants (all on the cluster of `knex`) have a row of `outbox` in a pending
 * state: a relay's safety sweep, in one statement per CHUNK tenants instead of a visit per
 * tenant. Each part is one probe of the table's partial index of pending rows
 * (message_deliveries_pending, migration 050; webhook_deliveries_pending, migration 110), so a
 * tenant at rest costs a few index pages.
 */
export async function tenantsWithPending(knex: Knex, tenants: readonly ScanTenant[], outbox: OutboxTable): Promise<number[]> {
  const found: number[] = [];
  const states = outbox.pendingStates.map((s) => `'${s.replace(/'/g, "''")}'`).join(', ');
  await forEachMigratedChunk(knex, tenants, outbox.table, async (parts) => {
    const sql = parts.map(() => `(select ?::int as id where exists (select 1 from ??.?? where state in (${states})))`).join(' union all ');
    const { rows } = await knex.raw(sql, parts.flatMap((t) => [t.id, t.schema, outbox.table]));
    for (const r of rows as { id: number }[]) found.push(r.id);
  });
  return found;
}
