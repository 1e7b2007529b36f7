import { Cluster, Redis, type ClusterOptions } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import type { ClusterNodeOptions, RedisTarget } from './redis-target';

/**
 * A Redis the product talks to: one server (REDIS_URL) or a Redis Cluster
 * (REDIS_CLUSTER_NODES). Every command the product sends works on both; keys that one
 * command, MULTI or script uses together share a hash tag (see README.md).
 */
export type RedisClient = Redis | Cluster;

export function isRedisCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}

/** Fail fast while Redis is away: callers decide (sessions answer 503, messages stay in the outbox). */
const MAX_RETRIES_PER_REQUEST = 1;
// A call waits for at most one reconnect attempt before its 503, and the API is back within a second
// of Redis: attempts every ≤ 1 s (test/platform/lifecycle/dependency-restarts.test.ts).
/**
 * Commands issued in one turn of the event loop go out in one write: a request's session GETEX
 * and rate-limit script were a write syscall each, about 11% of the API's CPU on GET /api/person;
 * batched, 4% (bench, 32 connections). ioredis never batches MULTI, SUBSCRIBE and the like.
 * Raw EVAL/EVALSHA stay out: on a cluster ioredis picks the slot of an EVALSHA by its hash, not
 * its key (redis/ioredis#2109).
 * rlflxIncr (rate-limiter-flexible's script, a custom command) is batched on one server: ioredis
 * 6.0 misaligns a batch's answers ("results[i] is not iterable", callers never answered) only
 * when the command is first defined while a batch is open (redis/ioredis#1931, fixed after 6.0.0
 * by #2180), so it is defined with the client, before any batch exists (defineRateLimitScript).
 * The API's rate-limit write was 4% of its CPU on GET /api/person on its own. On a cluster it
 * stays out of batches: ioredis loads scripts per node before a cluster batch, untested here.
 */
const RATE_LIMIT_SCRIPT = ['rlflxIncr', 'rlflxIncrBuffer'];
const AUTO_PIPELINING = { enableAutoPipelining: true, autoPipeliningIgnoredCommands: ['eval', 'evalsha'] };
const CLUSTER_AUTO_PIPELINING = { ...AUTO_PIPELINING, autoPipeliningIgnoredCommands: [...AUTO_PIPELINING.autoPipeliningIgnoredCommands, ...RATE_LIMIT_SCRIPT] };
const reconnectDelay = (times: number) => Math.min(times * 100, 1000);

/** The one way the product opens a Redis connection (BullMQ's own connections derive from it). */
export function createRedisClient(target: RedisTarget, name: string, logger: Logger): RedisClient {
  const client =
    target.kind === 'single'
      ? new Redis(target.url, { maxRetriesPerRequest: MAX_RETRIES_PER_REQUEST, enableOfflineQueue: true, retryStrategy: reconnectDelay, ...AUTO_PIPELINING })
      : failFastOnceReady(new Cluster(target.nodes, { ...clusterOptions(target.redisOptions, MAX_RETRIES_PER_REQUEST), ...CLUSTER_AUTO_PIPELINING }));
  defineRateLimitScript(client);
  client.on('error', (err: Error) => logger.warn({ err: err.message }, `${name} connection error`));
  return client;
}

/**
 * rate-limiter-flexible defines its script (rlflxIncr) on the client whenever a limiter is made;
 * one made now defines it before any auto-pipeline batch is open, so every batch knows it. Later
 * limiters define the same script again, which open batches already have.
 */
export function defineRateLimitScript(client: RedisClient): void {
  new RateLimiterRedis({ storeClient: client, points: 1, duration: 1 });
}

/**
 * While a whole cluster is away, ioredis' Cluster keeps every command in its offline queue until the
 * cluster is back (maxRetriesPerRequest only bounds the retries on one node), so a request would
 * wait instead of answering 503. The queue is needed only until the first connection (commands
 * sent during start-up): after that, commands fail at once while the cluster is unreachable, as
 * they do on one server.
 */
function failFastOnceReady(cluster: Cluster): Cluster {
  cluster.once('ready', () => {
    cluster.options.enableOfflineQueue = false;
  });
  return cluster;
}

function clusterOptions(nodeOptions: ClusterNodeOptions, maxRetriesPerRequest: number | null): ClusterOptions {
  return {
    enableOfflineQueue: true,
    clusterRetryStrategy: reconnectDelay,
    // Slots move during a failover or a resharding: ask again soon, do not fail the command at once.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    redisOptions: { ...nodeOptions, maxRetriesPerRequest },
  };
}

/**
 * A new, lazy Cluster client to the same cluster for BullMQ, which cannot build one from options.
 * Blocking (worker) connections must wait out an outage (maxRetriesPerRequest null, as BullMQ
 * requires); producers fail fast instead. BullMQ connects it when it needs it.
 */
export function clusterForBullmq(client: Cluster, blocking: boolean): Cluster {
  const { username, password, tls } = client.options.redisOptions ?? {};
  // BullMQ's workers block on Redis (BZPOPMIN): a blocking command must not wait in a batch
  const copy = client.duplicate(undefined, {
    ...clusterOptions({ username, password, tls }, blocking ? null : MAX_RETRIES_PER_REQUEST),
    lazyConnect: true,
    enableAutoPipelining: false,
  });
  // producers fail fast like the product's own clients; workers (BullMQ copies this one) wait
  return blocking ? copy : failFastOnceReady(copy);
}

/**
 * Every key matching a glob pattern, page by page, on every master of a cluster (each holds only
 * its own slots) or on the one server. SCAN, never KEYS: a big keyspace must not block Redis.
 */
export async function* scanKeys(client: RedisClient, match: string, count = 500): AsyncGenerator<{ node: Redis; keys: string[] }> {
  const nodes = isRedisCluster(client) ? client.nodes('master') : [client];
  for (const node of nodes) {
    for await (const keys of node.scanStream({ match, count }) as AsyncIterable<string[]>) {
      if (keys.length > 0) yield { node, keys };
    }
  }
}

/** Another connection to the same Redis (a subscriber needs one of its own). */
export function duplicateClient(client: RedisClient): RedisClient {
  if (!isRedisCluster(client)) return client.duplicate();
  // the original's queue may be off by now; the copy needs it until its own first connection
  return failFastOnceReady(client.duplicate(undefined, { enableOfflineQueue: true }));
}
