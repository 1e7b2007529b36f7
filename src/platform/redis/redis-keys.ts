import type { Tenant } from '../tenant-scope/tenant';
import { isRedisCluster, type RedisClient } from './redis-client';

/**
 * Every Redis key of a tenant starts with this prefix, so the tenant id is part of every tenant key
 * and a deleted tenant's keys are found and dropped together (RedisKeysPurger).
 *
 * On a Redis Cluster the prefix is a hash tag, `{t42}:`: all keys of one tenant hash to one slot, so
 * the MULTI of a login (session + the person's session index) and the multi-key DEL of "end every
 * session of this person" are legal there. On a single Redis the prefix stays `t:42:`, the name keys
 * always had, so an upgrade invalidates no session; hash tags mean nothing there.
 */
export function tenantKeyPrefix(tenant: Pick<Tenant, 'id'>, redis: RedisClient): string {
  return isRedisCluster(redis) ? `{t${tenant.id}}:` : `t:${tenant.id}:`;
}
