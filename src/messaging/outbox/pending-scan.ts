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
  const { rows } = await knex.raw(`select s from unnest(array[${list}]::text[]) s where to_regclass(format('%I.%I', s, ?::text)) is not null`, [
    ...schemas,
    table,
  ]);
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
    const migrated = await migratedSchemas(
      knex,
      chunk.map((t) => t.schema),
      table,
    );
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
  await forEachMigratedChunk(knex, tenants, outbox.table, async (parts) => {
    const { rows } = await pendingProbe(knex, parts, outbox);
    for (const r of rows as { id: number }[]) found.push(r.id);
  });
  return found;
}

/**
 * The sweep's statement for some tenants. Each part reads the first pending id in id order: the
 * partial index of pending rows (on id) gives it without a sort, so the planner takes it whatever
 * the statistics say. An `exists` probe left the choice open (PostgreSQL drops a sub-query's order
 * inside exists): with many pending rows behind a long delivered history it chose a sequential scan
 * that expected a pending row within the first pages and read the whole history instead.
 */
export function pendingProbe(knex: Knex, parts: readonly ScanTenant[], outbox: OutboxTable): Knex.Raw {
  const states = outbox.pendingStates.map((s) => `'${s.replace(/'/g, "''")}'`).join(', ');
  const sql = parts
    .map(() => `(select ?::int as id from (select id from ??.?? where state in (${states}) order by id limit 1) first_pending)`)
    .join(' union all ');
  return knex.raw(
    sql,
    parts.flatMap((t) => [t.id, t.schema, outbox.table]),
  );
}
