import { inject, injectAll, injectable } from 'tsyringe';
import { Queue, type ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { LOGGER } from '../tokens';
import { QUEUES, QUEUE_PREFIX, QUEUE_REDIS, type QueueDefinition } from './job-definition';

export type QueueCounts = Record<'waiting' | 'prioritized' | 'active' | 'delayed' | 'failed' | 'completed', number>;

/** Connection options for BullMQ, taken from the container's Redis (same server, own sockets). */
export function bullConnection(redis: Redis, blocking: boolean): ConnectionOptions {
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
 * The BullMQ queues of one container, opened on first use (registered as a singleton per
 * container in features.ts, so test containers never share one).
 */
@injectable()
export class QueueRegistry {
  private readonly queues = new Map<string, Queue>();

  constructor(
    @inject(QUEUE_REDIS) private readonly redis: Redis,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(QUEUE_PREFIX) readonly prefix: string,
    @injectAll(QUEUES, { isOptional: true }) private readonly definitions: QueueDefinition[] = [],
  ) {}

  get(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: bullConnection(this.redis, false), prefix: this.prefix, skipWaitingForReady: true });
      q.on('error', (err) => this.logger.warn({ err: err.message, queue: name }, 'queue connection error'));
      this.queues.set(name, q);
    }
    return q;
  }

  all(): Queue[] {
    return this.definitions.map((d) => this.get(d.name));
  }

  async counts(): Promise<Record<string, QueueCounts>> {
    const entries = await Promise.all(
      this.all().map(async (q) => [q.name, (await q.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed')) as QueueCounts] as const),
    );
    return Object.fromEntries(entries);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
