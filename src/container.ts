import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { Logger } from 'pino';
import type { Env } from './platform/config/env';
import { createKnex } from './platform/db/create-knex';
import { createLogger } from './platform/logging/logger';
import { DATABASE_URL, ENV, KNEX, LOGGER, REDIS, TENANT_POOLS } from './platform/tokens';
import { createTenantPools } from './platform/db/tenant-pools';
import { CLUSTERS, Clusters } from './platform/clusters/clusters';
import { registerFeatures } from './features';
import { CLOCK, systemClock } from './platform/time/tenant-clock';
import { QUEUE_REDIS } from './platform/queue/job-definition';
import { QueueRegistry } from './platform/queue/queue-registry';
import { MailSender } from './messaging';
import { createRedisClient } from './platform/redis/redis-client';
import { redisTargets } from './platform/redis/redis-target';

export interface Connections {
  databaseUrl: string;
  /** Not needed when env.REDIS_CLUSTER_NODES names a Redis Cluster. */
  redisUrl?: string;
}

/**
 * Root registrations shared by the API and the workers. Each call builds a fresh,
 * independent container, so tests can run several app instances in one process.
 */
export function buildContainer(env: Env, connections: Connections, logger?: Logger): DependencyContainer {
  const c = rootContainer.createChildContainer();
  const log = logger ?? createLogger(env);
  c.register(ENV, { useValue: env });
  c.register(LOGGER, { useValue: log });
  c.register(CLOCK, { useValue: systemClock });
  c.register(DATABASE_URL, { useValue: connections.databaseUrl });
  const platformKnex = createKnex(env, connections.databaseUrl, undefined, log);
  const mainPools = createTenantPools(env, connections.databaseUrl, log);
  c.register(KNEX, { useValue: platformKnex });
  c.register(TENANT_POOLS, { useValue: mainPools });
  // main is DATABASE_URL; TENANT_DATABASE_URLS adds more clusters for tenant schemas
  c.register(CLUSTERS, { useValue: new Clusters(env, connections.databaseUrl, { admin: platformKnex, pools: mainPools }) });
  const redis = redisTargets(env, connections.redisUrl);
  c.register(REDIS, { useValue: createRedisClient(redis.main, 'redis', log) });
  // Queues may live on a Redis of their own, so a session-store outage and a queue outage are separate.
  if (redis.queues) c.register(QUEUE_REDIS, { useValue: createRedisClient(redis.queues, 'queue redis', log) });
  registerFeatures(c);
  return c;
}

/** Closes what buildContainer opened. */
export async function closeContainer(c: DependencyContainer): Promise<void> {
  // open queues keep sockets (and a CLI process) alive; the registry opens none until used
  if (c.isRegistered(QueueRegistry, true)) await c.resolve(QueueRegistry).close();
  // pooled SMTP connections would otherwise stay open until the server times them out
  if (c.isRegistered(MailSender, true)) c.resolve(MailSender).close();
  const clients = new Set([c.resolve(REDIS), c.resolve(QUEUE_REDIS)]);
  for (const redis of clients) await redis.quit().catch(() => redis.disconnect());
  await Promise.all([c.resolve(KNEX).destroy(), c.resolve(TENANT_POOLS).destroy(), c.resolve(CLUSTERS).destroy()]);
}
