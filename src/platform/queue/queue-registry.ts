import { inject, injectAll, injectable } from 'tsyringe';
import { Queue, type ConnectionOptions } from 'bullmq';
import { clusterForBullmq, isRedisCluster, type RedisClient } from '../redis/redis-client';
import type { Logger } from 'pino';
import { LOGGER } from '../tokens';
import { QUEUES, QUEUE_PREFIX, QUEUE_REDIS, type QueueDefinition } from './job-definition';

export type QueueCounts = Record<'waiting' | 'prioritized' | 'active' | 'delayed' | 'failed' | 'completed', number>;

/**
 * Connection for BullMQ, taken from the container's Redis (same server, own sockets). A single
 * Redis is given as options (BullMQ opens and closes the sockets); a cluster as a lazy Cluster
 * client, as BullMQ builds only single-server clients from options. A Worker duplicates it and
 * closes its copies itself; a Queue uses it as is, so its owner quits it (QueueRegistry.close).
 */
export function bullConnection(redis: RedisClient, blocking: boolean): ConnectionOptions {
  if (isRedisCluster(redis)) return clusterForBullmq(redis, blocking);
  const o = redis.options;
  return {
    host: o.host,
    port: o.port,
    username: o.username,
    password: o.password,
    db: o.db,
    // Workers block on Redis and must wait out an outage; producers should fail fast instead.
    maxRetriesPerRequest: blocking ? null : 1,
    retryStrategy: (times: number) => Math.min(times * 200, 2000),
  };
}

/**
 * BullMQ's key prefix of one queue. BullMQ's scripts use several keys of a queue at once, so on a
 * Redis Cluster they must share a slot: the queue's name becomes the prefix's hash tag, as BullMQ's
 * Redis Cluster guide advises (one tag per queue spreads the queues over the masters). On a single
 * Redis the prefix stays as it was, so jobs waiting across an upgrade are not orphaned.
 */
export function bullPrefix(base: string, queue: string, redis: RedisClient): string {
  return isRedisCluster(redis) ? `${base}:{${queue}}` : base;
}

/**
 * The BullMQ queues of one container, opened on first use (registered as a singleton per
 * container in features.ts, so test containers never share one).
 */
@injectable()
export class QueueRegistry {
  private readonly queues = new Map<string, Queue>();
  /** The producers' connection to a cluster, shared by the queues and quit by close(). */
  private clusterConnection: ConnectionOptions | null = null;

  constructor(
    @inject(QUEUE_REDIS) private readonly redis: RedisClient,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(QUEUE_PREFIX) readonly prefix: string,
    @injectAll(QUEUES, { isOptional: true }) private readonly definitions: QueueDefinition[] = [],
  ) {}

  get(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection(), prefix: bullPrefix(this.prefix, name, this.redis), skipWaitingForReady: true });
      q.on('error', (err) => this.logger.warn({ err: err.message, queue: name }, 'queue connection error'));
      this.queues.set(name, q);
    }
    return q;
  }

  private connection(): ConnectionOptions {
    if (!isRedisCluster(this.redis)) return bullConnection(this.redis, false);
    return (this.clusterConnection ??= bullConnection(this.redis, false));
  }

  all(): Queue[] {
    return this.definitions.map((d) => this.get(d.name));
  }

  async counts(): Promise<Record<string, QueueCounts>> {
    const entries = await Promise.all(
      this.all().map(
        async (q) => [q.name, (await q.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed')) as QueueCounts] as const,
      ),
    );
    return Object.fromEntries(entries);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
    const shared = this.clusterConnection as RedisClient | null;
    this.clusterConnection = null;
    if (shared) await shared.quit().catch(() => shared.disconnect());
  }
}
