import type { Knex } from 'knex';
import { statementName } from '../db/named-statements';
import { oneQueryAtATime } from '../db/one-query-at-a-time';

/**
 * The only database handle that tenant code receives. Every query it builds is
 * qualified with the tenant's schema; connections carry an empty search_path, so an
 * unqualified table name in raw SQL fails instead of reaching another schema.
 */
export class TenantDb {
  constructor(
    private readonly knex: Knex | Knex.Transaction,
    readonly schema: string,
  ) {}

  /** Query builder on one of the tenant's tables. */
  table<TRecord extends object = any>(name: string): Knex.QueryBuilder<TRecord, any> {
    return this.knex.withSchema(this.schema).table(name);
  }

  /**
   * Schema-qualified name for raw SQL and sub-queries. Not for joins on db.table(): knex's
   * withSchema already qualifies joined tables there, so join by the bare name.
   */
  ref(name: string): string {
    return `${this.schema}.${name}`;
  }

  /** Raw SQL. Write `??` for identifiers and pass db.ref(...) as the binding. */
  raw<T = any>(sql: string, bindings: readonly Knex.RawBinding[] | Knex.ValueDict = []): Knex.Raw<T> {
    return this.knex.raw(sql, bindings as any);
  }

  /**
   * Raw SQL run as a named (prepared) statement: parsed and planned once per connection, for hot
   * statements only (src/platform/db/named-statements.ts). `key` names the statement in the code;
   * the name also digests the SQL text, which includes the tenant's schema.
   */
  prepared<T = any>(key: string, sql: string, bindings: readonly Knex.RawBinding[] = []): Knex.Raw<T> {
    const raw = this.raw<T>(sql, bindings);
    return raw.options({ name: statementName(key, raw.toSQL().sql) });
  }

  /** Knex helpers that need no table (fn.now(), ref to columns, etc.). */
  get fn(): Knex.FunctionHelper {
    return this.knex.fn;
  }

  get builder(): Knex | Knex.Transaction {
    return this.knex;
  }

  get inTransaction(): boolean {
    return (this.knex as Knex.Transaction).isTransaction === true;
  }

  /** Runs fn in a transaction (or joins the current one) with the same tenant scope. */
  async transaction<T>(fn: (db: TenantDb) => Promise<T>): Promise<T> {
    if (this.inTransaction) return fn(this);
    return (this.knex as Knex).transaction((trx) => fn(new TenantDb(oneQueryAtATime(trx), this.schema)));
  }
}

/** Ids among `ids` that match no row of the tenant's `table` (for the 404 that names them). */
export async function missingIds(db: TenantDb, table: string, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = new Set(
    (
      await db
        .table(table)
        .whereIn('id', [...ids])
        .select('id')
    ).map((r: { id: number }) => r.id),
  );
  return ids.filter((id) => !found.has(id));
}

export function schemaNameForSlug(slug: string): string {
  return `tenant_${slug.replace(/-/g, '_')}`;
}
