// Tracing first: it must load before http, pg and ioredis do (src/platform/tracing/start-tracing.ts).
import './platform/tracing/init-api';
import 'reflect-metadata';
import cluster from 'node:cluster';
import { loadEnvOrExit, type Env } from './platform/config/env';
import { createLogger } from './platform/logging/logger';
import { buildContainer, closeContainer } from './container';
import { startServer } from './server';
import { onShutdownSignal } from './platform/lifecycle/shutdown';
import { startApiProcesses } from './platform/processes/api-processes';
import { warnIfNodeEndOfLife } from './platform/lifecycle/node-support';
import { flushTracing } from './platform/tracing/start-tracing';

/**
 * `npm run api`: the HTTP API alone, for production. Unlike `npm start` it starts no
 * PostgreSQL or Redis, runs no migration (run `npm run migrate` before deploying), imports no
 * demo tenant and starts no workers (`npm run workers` runs them, on this or another machine).
 * With WEB_CONCURRENCY=N above 1 it runs N API processes on the one port (node:cluster); each of
 * them runs this file too. `npm start` starts its API processes the same way.
 */
async function main(): Promise<void> {
  const env = loadEnvOrExit();
  if (!env.DATABASE_URL || !(env.REDIS_URL || env.REDIS_CLUSTER_NODES)) {
    process.stderr.write('npm run api needs DATABASE_URL and REDIS_URL or REDIS_CLUSTER_NODES (npm start runs local ones when they are unset)\n');
    process.exit(1);
  }
  if (cluster.isPrimary && env.WEB_CONCURRENCY > 1) return runPrimary(env);
  const logger = createLogger(env, 'api');
  if (cluster.isPrimary) warnIfNodeEndOfLife(logger);
  const container = buildContainer(env, { databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL }, logger);
  const server = await startServer(container);

  // SIGTERM: the same bounded drain as npm start (see src/platform/lifecycle/README.md).
  onShutdownSignal(logger, { drain: () => server.close(), close: () => closeContainer(container).finally(flushTracing) });
}

/** The primary of WEB_CONCURRENCY API processes: holds the port, replaces a process that dies. */
async function runPrimary(env: Env): Promise<void> {
  const logger = createLogger(env, 'api-primary');
  warnIfNodeEndOfLife(logger);
  const processes = await startApiProcesses({ count: env.WEB_CONCURRENCY, env: process.env, logger });
  logger.info({ processes: processes.pids() }, `${env.WEB_CONCURRENCY} API processes listening`);
  onShutdownSignal(logger, { drain: () => processes.stop(), close: async () => {} });
}

main().catch((err) => {
  process.stderr.write(`api failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
