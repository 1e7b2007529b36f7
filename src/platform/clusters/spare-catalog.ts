import type { Knex } from 'knex';

/** Spare schemas are named spare_<hex>; tenant schemas are tenant_<slug>, so the two never meet. */
export const SPARE_PREFIX = 'spare_';

/** The spare schemas of one cluster, oldest name first (from pg_namespace, an MVCC read). */
export async function listSpares(db: Knex | Knex.Transaction, limit = 100_000): Promise<string[]> {
  const { rows } = await db.raw("select nspname from pg_namespace where nspname like 'spare\\_%' order by nspname limit ?", [limit]);
  return rows.map((r: { nspname: string }) => r.nspname);
}
