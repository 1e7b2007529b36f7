import type { Knex } from 'knex';

/** A table of a tenant schema as the catalog describes it. */
export interface CatalogTable {
  name: string;
  /** Every column in attribute order. */
  columns: string[];
  /** Columns an INSERT may name (generated columns are computed again). */
  insertable: string[];
  /** Primary key columns; empty for link tables without one. */
  primaryKey: string[];
  /** Columns declared NOT NULL. */
  notNull: string[];
}

export interface CatalogSequence {
  sequence: string;
  table: string;
  column: string;
}

/**
 * Kept by the migration runner, not data: the archive's manifest records the applied
 * migrations instead, and the import's own runs write this table.
 */
export const NOT_DATA = new Set(['schema_migrations']);

/**
 * Every table of the schema, parents before children (foreign keys), found in the catalog
 * so that a table added by a later migration is exported and imported without code changes.
 */
export async function catalogTables(db: Knex | Knex.Transaction, schema: string): Promise<CatalogTable[]> {
  const cols = await db.raw(
    `select c.relname as table, a.attname as column, a.attgenerated <> '' as generated, a.attnotnull as not_null,
            coalesce(a.attnum = any(i.indkey::int2[]), false) as pk
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       left join pg_index i on i.indrelid = c.oid and i.indisprimary
      where n.nspname = ? and c.relkind in ('r', 'p') and not c.relispartition
      order by c.relname, a.attnum`,
    [schema],
  );
  const tables = new Map<string, CatalogTable>();
  for (const r of cols.rows as { table: string; column: string; generated: boolean; not_null: boolean; pk: boolean }[]) {
    if (NOT_DATA.has(r.table)) continue;
    const t = tables.get(r.table) ?? { name: r.table, columns: [], insertable: [], primaryKey: [], notNull: [] };
    t.columns.push(r.column);
    if (!r.generated) t.insertable.push(r.column);
    if (r.pk) t.primaryKey.push(r.column);
    if (r.not_null) t.notNull.push(r.column);
    tables.set(r.table, t);
  }
  const fks = await db.raw(
    `select cl.relname as table, ref.relname as parent
       from pg_constraint co
       join pg_class cl on cl.oid = co.conrelid
       join pg_class ref on ref.oid = co.confrelid
       join pg_namespace n on n.oid = cl.relnamespace
      where co.contype = 'f' and n.nspname = ? and cl.oid <> ref.oid`,
    [schema],
  );
  const parents = new Map<string, Set<string>>();
  for (const r of fks.rows as { table: string; parent: string }[]) {
    if (!tables.has(r.parent)) continue;
    parents.set(r.table, (parents.get(r.table) ?? new Set()).add(r.parent));
  }
  // Kahn's order with names as the tie-break, so two exports of equal schemas list tables alike.
  const order: CatalogTable[] = [];
  const left = new Map(tables);
  while (left.size) {
    const ready = [...left.keys()].filter((t) => ![...(parents.get(t) ?? [])].some((p) => left.has(p)));
    // A cycle of foreign keys: take the rest by name (the import loads with triggers off anyway).
    const next = ready.length ? ready : [...left.keys()];
    for (const name of next.sort()) {
      order.push(left.get(name)!);
      left.delete(name);
    }
  }
  return order;
}

/** Sequences owned by columns of the schema (serial, bigserial and identity columns). */
export async function catalogSequences(db: Knex | Knex.Transaction, schema: string): Promise<CatalogSequence[]> {
  const r = await db.raw(
    `select s.relname as sequence, t.relname as table, a.attname as column
       from pg_depend d
       join pg_class s on s.oid = d.objid and s.relkind = 'S'
       join pg_class t on t.oid = d.refobjid
       join pg_attribute a on a.attrelid = t.oid and a.attnum = d.refobjsubid
       join pg_namespace n on n.oid = s.relnamespace
      where n.nspname = ? and d.deptype in ('a', 'i')
      order by s.relname`,
    [schema],
  );
  return (r.rows as CatalogSequence[]).filter((s) => !NOT_DATA.has(s.table));
}
