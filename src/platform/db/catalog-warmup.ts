import type { InjectionToken } from 'tsyringe';
import type { TenantPools } from './tenant-pools';

/**
 * Tables a tenant's first requests read (GET /api/person: the account and the full view), each
 * registered by the module that owns it (multi-registration, names only, unqualified). The start-up
 * warm-up builds PostgreSQL's catalog entries of these tables, for each tenant, on each connection of
 * the tenant's connection group, before the API listens (warmTenantCatalogs).
 */
export const TENANT_WARM_TABLES: InjectionToken<readonly string[]> = Symbol('TenantWarmTables');

export interface WarmTenant {
  id: number;
  schema: string;
}

export interface WarmupReport {
  /** tenants warmed on every connection of their group */
  tenants: number;
  /** tenants left cold: the time budget ran out, or a connection's tenant budget was reached */
  skipped: number;
  connections: number;
  ms: number;
}

/**
 * What one (connection, tenant) pair runs: EXPLAIN (planned, not executed) of a read of
 * each table, in one round trip. Planning opens the table and every index of it and reads their
 * statistics, so PostgreSQL builds the relation's cache entries (columns, indexes, triggers,
 * constraints, policies) that a first real statement of the tenant on this connection would
 * otherwise build inside a request: 1.3-1.7 ms of PostgreSQL CPU per tenant for GET /api/person
 * (its two reads cost 1.3 ms once built; test/bench/README.md "The first seconds after a start").
 */
export function warmStatements(schema: string, tables: readonly string[]): string {
  const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return tables.map((t) => `explain select * from ${q(schema)}.${q(t)}`).join(';\n');
}

interface GroupClient {
  acquireConnection(): Promise<RawConnection>;
  releaseConnection(c: RawConnection): Promise<unknown>;
  config: { pool?: { max?: number } };
}
interface RawConnection {
  query(sql: string): Promise<unknown>;
}

/**
 * Warms the catalog of `tables` for `tenants` on every connection of their group (tenant id modulo
 * the groups, as TenantPools.forTenant places them), all connections at once, each one tenant after
 * the other, until `budgetMs` has passed: the tenants not reached then pay it on their first request,
 * as without the warm-up. So the start-up grows by at most `budgetMs` whatever the tenant count.
 * A connection takes at most `perConnection` tenants (half the recycling budget,
 * DATABASE_CONNECTION_MAX_TENANTS: a warm-up must not get a connection recycled as soon as traffic
 * comes), and each warmed tenant counts in that budget as a served one does. A failure on a tenant
 * (a schema dropped meanwhile, a table not there yet) only skips that pair.
 */
export async function warmTenantCatalogs(
  pools: TenantPools,
  tenants: readonly WarmTenant[],
  tables: readonly string[],
  opts: { budgetMs: number; perConnection: number },
): Promise<WarmupReport> {
  const started = Date.now();
  const deadline = started + opts.budgetMs;
  const groups = pools.groups.length;
  const warmedOnAll = new Map<number, number>();
  let connections = 0;
  if (tables.length === 0 || opts.budgetMs <= 0) return { tenants: 0, skipped: tenants.length, connections: 0, ms: 0 };
  await Promise.all(
    pools.groups.map(async (group, index) => {
      const mine = tenants.filter((t) => t.id % groups === index).slice(0, opts.perConnection);
      const client = group.client as GroupClient;
      const size = client.config.pool?.max ?? 1;
      const held = await Promise.all(Array.from({ length: size }, () => client.acquireConnection()));
      connections += held.length;
      try {
        await Promise.all(
          held.map(async (connection) => {
            for (const tenant of mine) {
              if (Date.now() >= deadline) return;
              try {
                await connection.query(warmStatements(tenant.schema, tables));
                pools.budget?.touch(connection, tenant.id);
                warmedOnAll.set(tenant.id, (warmedOnAll.get(tenant.id) ?? 0) + 1);
              } catch {
                // that tenant's first request builds its entries, as without a warm-up
              }
            }
          }),
        );
      } finally {
        await Promise.all(held.map((c) => client.releaseConnection(c)));
      }
      // a tenant counts as warmed when every connection of its group met it
      for (const t of mine) if ((warmedOnAll.get(t.id) ?? 0) < held.length) warmedOnAll.delete(t.id);
    }),
  );
  const warmed = [...warmedOnAll.keys()].length;
  return { tenants: warmed, skipped: tenants.length - warmed, connections, ms: Date.now() - started };
}
