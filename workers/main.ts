// Tracing first: it must load before http, pg and ioredis do (src/platform/tracing/start-tracing.ts).
import '../src/platform/tracing/init-workers';
import 'reflect-metadata';
import { loadEnvOrExit } from '../src/platform/config/env';
import { createLogger } from '../src/platform/logging/logger';
import { buildContainer, closeContainer } from '../src/container';
import { TenantResolver } from '../src/platform/tenant-scope/tenant-resolver';
import { startWorkers } from '../src/platform/queue/worker-runtime';
import { onShutdownSignal } from '../src/platform/lifecycle/shutdown';
import { WORKERS_READY } from '../src/worker-process';
import { warnIfNodeEndOfLife } from '../src/platform/lifecycle/node-support';
import { flushTracing } from '../src/platform/tracing/start-tracing';

/** Worker entry point: the same container as the API, every job registered. */
async function main(): Promise<void> {
  const env = loadEnvOrExit();
  if (!env.DATABASE_URL || !(env.REDIS_URL || env.REDIS_CLUSTER_NODES)) {
    process.stderr.write('workers need DATABASE_URL and REDIS_URL or REDIS_CLUSTER_NODES (npm start sets both)\n');
    process.exit(1);
  }
  const logger = createLogger(env, 'workers');
  // under npm start the parent process has said it already
  if (!process.send) warnIfNodeEndOfLife(logger);
  const container = buildContainer(env, { databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL }, logger);
  await container.resolve(TenantResolver).start();
  const runtime = await startWorkers(container);
  logger.info({ workers: runtime.names }, 'workers started');
  // under npm start: the API waits for this before it listens (src/worker-process.ts)
  process.send?.(WORKERS_READY);
  // SIGTERM: running jobs finish (at most SHUTDOWN_GRACE_MS), no new ones start, then exit 0.
  onShutdownSignal(logger, {
    drain: () => runtime.stop(),
    close: async () => {
      await container.resolve(TenantResolver).stop();
      await closeContainer(container);
      await flushTracing();
    },
  });
}

main().catch((err) => {
  process.stderr.write(`workers failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
