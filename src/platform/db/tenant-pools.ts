import type { Knex } from 'knex';
import type { Env } from '../config/env';
import { createKnex } from './create-knex';

/**
 * The connections tenant code runs on, split into groups; a tenant always uses the same group.
 * Postgres caches the catalog of every schema a connection has touched, and building those
 * entries is the dearest part of a query on a connection that has not seen the tenant yet. With
 * every connection serving every tenant, that cost is paid (and the memory held) once per
 * connection per tenant; with groups, once per group member per tenant. The price: one tenant
 * can use only its group's connections at a time (DATABASE_POOL_GROUPS=1 turns grouping off).
 */
export class TenantPools {
  constructor(readonly groups: readonly Knex[]) {
    if (groups.length === 0) throw new Error('TenantPools needs at least one group');
  }

  forTenant(tenantId: number): Knex {
    return this.groups[tenantId % this.groups.length];
  }

  async destroy(): Promise<void> {
    await Promise.all(this.groups.map((g) => g.destroy()));
  }
}

export function createTenantPools(env: Pick<Env, 'DATABASE_POOL_MAX' | 'DATABASE_POOL_GROUPS' | 'DATABASE_CONNECTION_LIFETIME_SECONDS'>, databaseUrl: string): TenantPools {
  const perGroup = Math.max(1, Math.ceil(env.DATABASE_POOL_MAX / env.DATABASE_POOL_GROUPS));
  return new TenantPools(Array.from({ length: env.DATABASE_POOL_GROUPS }, () => createKnex({ ...env, DATABASE_POOL_MAX: perGroup }, databaseUrl)));
}
