import { inject, injectable, type InjectionToken } from 'tsyringe';
import type { RedisClient } from '../redis/redis-client';
import { REDIS } from '../tokens';
import { tenantKeyPrefix } from '../redis/redis-keys';
import { scanKeys } from '../redis/redis-client';

/** What a purger gets: the tenant being deleted (its platform rows may already be gone). */
export interface PurgedTenant {
  id: number;
  slug: string;
  /** The dropped schema's name; also the tenant's namespace in the file store. */
  schema: string;
}

/**
 * Removes a deleted tenant's data that lives outside its schema. Multi-registration:
 * every module that keeps tenant data elsewhere (Redis keys, queued BullMQ jobs whose
 * data.tenantId matches, files) registers one in its index.ts, and
 * `TenantAdminService.delete` calls them all.
 */
export interface TenantPurger {
  readonly name: string;
  /** Returns a short line for the operator, e.g. "42 Redis keys". */
  purge(tenant: PurgedTenant): Promise<string>;
}

export const TENANT_PURGERS: InjectionToken<TenantPurger> = Symbol('TenantPurgers');

/** Drops every Redis key under the tenant's key prefix (sessions, sign-on hashes, rate limits, idempotency keys). */
@injectable()
export class RedisKeysPurger implements TenantPurger {
  readonly name = 'redis-keys';
  constructor(@inject(REDIS) private readonly redis: RedisClient) {}

  async purge(tenant: PurgedTenant): Promise<string> {
    let removed = 0;
    // on a cluster, every master; a tenant's keys share its hash tag, so one UNLINK per page is one slot
    for await (const { node, keys } of scanKeys(this.redis, `${tenantKeyPrefix(tenant, this.redis)}*`)) removed += await node.unlink(...keys);
    return `${removed} Redis keys`;
  }
}
