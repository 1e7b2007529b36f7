import type { Knex } from 'knex';

/** Tenants per statement: one UNION ALL of index probes. */
const CHUNK = 200;

/**
 * Which of these tenants have a delivery still queued or sending: the relay's safety sweep, in one
 * statement per CHUNK tenants instead of a visit per tenant. Each part is one probe of the partial
 * index message_deliveries_pending (migration 050), so a tenant at rest costs a few index pages.
 * Schemas without the outbox table yet (not migrated) are left out by the catalog check.
 */
export async function tenantsWithPendingDeliveries(knex: Knex, tenants: readonly { id: number; schema: string }[]): Promise<number[]> {
  const found: number[] = [];
  for (let i = 0; i < tenants.length; i += CHUNK) {
    const chunk = tenants.slice(i, i + CHUNK);
    const migrated = new Set<string>(
      await knex('pg_catalog.pg_tables')
        .where({ tablename: 'message_deliveries' })
        .whereIn('schemaname', chunk.map((t) => t.schema))
        .pluck('schemaname'),
    );
    const parts = chunk.filter((t) => migrated.has(t.schema));
    if (!parts.length) continue;
    const sql = parts.map(() => `(select ?::int as id where exists (select 1 from ??.message_deliveries where state in ('queued', 'sending')))`).join(' union all ');
    const { rows } = await knex.raw(sql, parts.flatMap((t) => [t.id, t.schema]));
    for (const r of rows as { id: number }[]) found.push(r.id);
  }
  return found;
}
