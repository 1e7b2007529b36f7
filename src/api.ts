import 'reflect-metadata';
import cluster from 'node:cluster';
import { loadEnvOrExit, type Env } from './platform/config/env';
import { createLogger } from './platform/logging/logger';
import { buildContainer, closeContainer } from './container';
import { startServer } from './server';
import { startApiProcesses } from './platform/processes/api-processes';

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
  const container = buildContainer(env, { databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL }, logger);
  const server = await startServer(container);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: shutting down`);
    await server.close();
    await closeContainer(container);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** The primary of WEB_CONCURRENCY API processes: holds the port, replaces a process that dies. */
async function runPrimary(env: Env): Promise<void> {
  const logger = createLogger(env, 'api-primary');
  const processes = await startApiProcesses({ count: env.WEB_CONCURRENCY, env: process.env, logger });
  logger.info({ processes: processes.pids() }, `${env.WEB_CONCURRENCY} API processes listening`);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: stopping the API processes`);
    await processes.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`api failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
