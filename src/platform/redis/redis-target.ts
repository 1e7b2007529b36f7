import type { RedisOptions } from 'ioredis';
import type { Env } from '../config/env';

/** Where a Redis is: a URL, or the seed nodes of a cluster (any reachable master or replica will do). */
export type RedisTarget = { kind: 'single'; url: string } | { kind: 'cluster'; nodes: ClusterSeed[]; redisOptions: ClusterNodeOptions };

export interface ClusterSeed {
  host: string;
  port: number;
}

/** Credentials and TLS shared by every node of a cluster. */
export type ClusterNodeOptions = Pick<RedisOptions, 'username' | 'password' | 'tls'>;

export class RedisTargetError extends Error {}

/**
 * Parses a REDIS_CLUSTER_NODES value: comma-separated `host:port` (IPv6 as `[::1]:7000`), or
 * `redis://[user:password@]host:port` / `rediss://...` entries whose credentials and TLS apply to
 * every node (a cluster has one ACL and one TLS setting).
 */
export function parseClusterNodes(value: string): RedisTarget & { kind: 'cluster' } {
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new RedisTargetError('no node given');
  const nodes: ClusterSeed[] = [];
  let redisOptions: ClusterNodeOptions = {};
  for (const entry of entries) {
    const withScheme = /^[a-z]+:\/\//i.test(entry);
    let url: URL;
    try {
      url = new URL(withScheme ? entry : `redis://${entry}`);
    } catch {
      throw new RedisTargetError(`"${entry}" is not host:port`);
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new RedisTargetError(`"${entry}": only redis:// and rediss:// are understood`);
    const port = Number(url.port);
    if (!url.hostname || !Number.isInteger(port) || port < 1 || (url.pathname !== '' && url.pathname !== '/')) {
      throw new RedisTargetError(`"${entry}" is not host:port`);
    }
    nodes.push({ host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port });
    const credentials = url.username || url.password;
    if (withScheme && (credentials || url.protocol === 'rediss:') && !redisOptions.password && !redisOptions.tls) {
      redisOptions = {
        ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
        ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
        ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
      };
    }
  }
  return { kind: 'cluster', nodes, redisOptions };
}

/**
 * The Redis of sessions, rate limits, sign-on hashes, idempotency keys and the tenant-change channel
 * (REDIS_CLUSTER_NODES, else REDIS_URL, else the URL of the Redis `npm start` runs), and the Redis of
 * the queues and the outbox and webhook signals (QUEUE_REDIS_CLUSTER_NODES, else QUEUE_REDIS_URL,
 * else the first one: null).
 */
export function redisTargets(
  env: Pick<Env, 'REDIS_CLUSTER_NODES' | 'QUEUE_REDIS_CLUSTER_NODES' | 'QUEUE_REDIS_URL'>,
  redisUrl: string | undefined,
): { main: RedisTarget; queues: RedisTarget | null } {
  const main: RedisTarget | null = env.REDIS_CLUSTER_NODES ? parseClusterNodes(env.REDIS_CLUSTER_NODES) : redisUrl ? { kind: 'single', url: redisUrl } : null;
  if (!main) throw new RedisTargetError('neither REDIS_CLUSTER_NODES nor REDIS_URL is set');
  const queues: RedisTarget | null = env.QUEUE_REDIS_CLUSTER_NODES
    ? parseClusterNodes(env.QUEUE_REDIS_CLUSTER_NODES)
    : env.QUEUE_REDIS_URL
      ? { kind: 'single', url: env.QUEUE_REDIS_URL }
      : null;
  return { main, queues };
}
