import { inject, injectable, type InjectionToken } from 'tsyringe';
import type { Redis } from 'ioredis';
import { REDIS } from '../tokens';
import { tenantKeyPrefix } from './tenant';

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

/** Drops every Redis key under t:<tenant id>: (sessions, sign-on hashes, rate limits). */
@injectable()
export class RedisKeysPurger implements TenantPurger {
  readonly name = 'redis-keys';
  constructor(@inject(REDIS) private readonly redis: Redis) {}

  async purge(tenant: PurgedTenant): Promise<string> {
    // SCAN, not KEYS: a big keyspace must not block Redis for everyone else.
    const stream = this.redis.scanStream({ match: `${tenantKeyPrefix(tenant)}*`, count: 500 });
    let removed = 0;
    for await (const keys of stream as AsyncIterable<string[]>) {
      if (keys.length === 0) continue;
      removed += await this.redis.unlink(...keys);
    }
    return `${removed} Redis keys`;
  }
}
