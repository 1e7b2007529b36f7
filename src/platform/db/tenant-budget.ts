/**
 * Connection recycling bounded by the tenants a connection has served. PostgreSQL keeps, per
 * backend, the catalog entries (relcache, catcache, plans' relation info) of every schema the
 * connection touched, about 100-140 KB per tenant schema for GET /api/person (measured: 750
 * tenants per backend, 100 MB PSS each). A lifetime alone bounds that memory by traffic, not by
 * tenants: with 10,000 tenants one backend of a group of 4 reached 2,500 schemas and the cluster
 * 3 GB. A connection that has served more than `max` distinct tenants is therefore not handed out
 * again: the pool's validate step refuses it, tarn destroys it and opens a fresh one. Memory per
 * tenant connection is then at most about `max` x 140 KB whatever the number of tenants.
 */
export class TenantBudget {
  private readonly served = new WeakMap<object, Set<number>>();
  /** connections recycled because they reached the budget */
  recycled = 0;

  constructor(readonly max: number) {}

  /** Notes that `connection` runs a query of `tenantId` (called on every acquire). */
  touch(connection: object, tenantId: number): void {
    let tenants = this.served.get(connection);
    if (!tenants) this.served.set(connection, (tenants = new Set()));
    tenants.add(tenantId);
  }

  /** Distinct tenants a connection has served. */
  tenantsOf(connection: object): number {
    return this.served.get(connection)?.size ?? 0;
  }

  /** The pool's validate hook: false (recycle) once a connection has served more than `max` tenants. */
  readonly keep = (connection: object): boolean => {
    if (this.tenantsOf(connection) <= this.max) return true;
    this.recycled++;
    return false;
  };
}
