import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Env } from '../config/env';
import { createKnex } from './create-knex';
import { GroupShare, sharedKnex, TenantShare, type ShareCounts } from './tenant-share';
import { TenantBudget } from './tenant-budget';

type PoolEnv = Pick<
  Env,
  | 'DATABASE_POOL_MAX'
  | 'DATABASE_POOL_GROUPS'
  | 'DATABASE_CONNECTION_LIFETIME_SECONDS'
  | 'DATABASE_STATEMENT_TIMEOUT_MS'
  | 'DATABASE_TENANT_SHARE_PERCENT'
  | 'DATABASE_TENANT_WAIT_MS'
  | 'DATABASE_TENANT_SHARE_BORROW'
  | 'DATABASE_CONNECTION_MAX_TENANTS'
>;

/**
 * The connections tenant code runs on, split into groups; a tenant always uses the same group.
 * Postgres caches the catalog of every schema a connection has touched, and building those
 * entries is the dearest part of a query on a connection that has not seen the tenant yet. With
 * every connection serving every tenant, that cost is paid (and the memory held) once per
 * connection per tenant; with groups, once per group member per tenant. The price: one tenant
 * can use only its group's connections at a time (DATABASE_POOL_GROUPS=1 turns grouping off).
 * Within its group a tenant is sure of its share (DATABASE_TENANT_SHARE_PERCENT). Past it, a
 * query borrows a free connection of the group while no other tenant of the group is queued or was
 * active within the last second, so a lone busy tenant uses the connections that would idle, and a
 * second tenant that turns up gets the next connection that comes free: the borrower's further
 * queries queue behind it (src/platform/lifecycle/README.md).
 */
export class TenantPools {
  private readonly perTenant = new Map<number, Knex>();
  readonly shareCounts: ShareCounts = { waits: 0, refusals: 0, borrows: 0 };
  private readonly groupShares: GroupShare[];

  constructor(
    readonly groups: readonly Knex[],
    private readonly share: { limit: number; waitMs: number; borrow?: boolean } | null = null,
    /** recycling by tenants served (DATABASE_CONNECTION_MAX_TENANTS); null: lifetime only */
    readonly budget: TenantBudget | null = null,
  ) {
    if (groups.length === 0) throw new Error('TenantPools needs at least one group');
    this.groupShares = groups.map((g) => new GroupShare(poolMax(g)));
  }

  forTenant(tenantId: number): Knex {
    const index = tenantId % this.groups.length;
    const group = this.groups[index];
    if (!this.share && !this.budget) return group;
    let knex = this.perTenant.get(tenantId);
    if (!knex) {
      const share = this.share
        ? new TenantShare(this.share.limit, this.share.waitMs, this.shareCounts, this.share.borrow === false ? null : this.groupShares[index])
        : null;
      knex = sharedKnex(group, share, this.budget ? { tenantId, budget: this.budget } : undefined);
      this.perTenant.set(tenantId, knex);
    }
    return knex;
  }

  /**
   * Opens every connection of every group, each then left idle in its pool (until the pool's idle
   * timeout): the API does this before it answers ready, so its first requests do not wait for
   * connection set-up (a backend start and a SCRAM exchange each).
   */
  async openConnections(): Promise<void> {
    await Promise.all(
      this.groups.map(async (g) => {
        const client = g.client as { acquireConnection(): Promise<object>; releaseConnection(c: object): Promise<unknown> };
        const connections = await Promise.all(Array.from({ length: poolMax(g) }, () => client.acquireConnection()));
        await Promise.all(connections.map((c) => client.releaseConnection(c)));
      }),
    );
  }

  async destroy(): Promise<void> {
    await Promise.all(this.groups.map((g) => g.destroy()));
  }
}

function poolMax(knex: Knex): number {
  return (knex.client as { config: { pool?: { max?: number } } }).config.pool?.max ?? 1;
}

export function createTenantPools(env: PoolEnv, databaseUrl: string, logger?: Logger): TenantPools {
  const perGroup = Math.max(1, Math.ceil(env.DATABASE_POOL_MAX / env.DATABASE_POOL_GROUPS));
  const budget = env.DATABASE_CONNECTION_MAX_TENANTS > 0 ? new TenantBudget(env.DATABASE_CONNECTION_MAX_TENANTS) : null;
  const groups = Array.from({ length: env.DATABASE_POOL_GROUPS }, () =>
    createKnex({ ...env, DATABASE_POOL_MAX: perGroup }, databaseUrl, env.DATABASE_STATEMENT_TIMEOUT_MS, logger, budget?.keep),
  );
  const limit = Math.max(1, Math.floor((perGroup * env.DATABASE_TENANT_SHARE_PERCENT) / 100));
  return new TenantPools(groups, limit >= perGroup ? null : { limit, waitMs: env.DATABASE_TENANT_WAIT_MS, borrow: env.DATABASE_TENANT_SHARE_BORROW }, budget);
}
