import 'reflect-metadata';
import { loadEnvOrExit } from './platform/config/env';
import { createLogger } from './platform/logging/logger';
import { buildContainer, closeContainer } from './container';
import { startServer } from './server';
import { onShutdownSignal } from './platform/lifecycle/shutdown';

/**
 * `npm run api`: the HTTP API alone, for production. Unlike `npm start` it starts no
 * PostgreSQL or Redis, runs no migration (run `npm run migrate` before deploying), imports no
 * demo tenant and starts no workers (`npm run workers` runs them, on this or another machine).
 */
async function main(): Promise<void> {
  const env = loadEnvOrExit();
  if (!env.DATABASE_URL || !env.REDIS_URL) {
    process.stderr.write('npm run api needs DATABASE_URL and REDIS_URL (npm start runs local ones when they are unset)\n');
    process.exit(1);
  }
  const logger = createLogger(env, 'api');
  const container = buildContainer(env, { databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL }, logger);
  const server = await startServer(container);

  // SIGTERM: the same bounded drain as npm start (see src/platform/lifecycle/README.md).
  onShutdownSignal(logger, { drain: () => server.close(), close: () => closeContainer(container) });
}

main().catch((err) => {
  process.stderr.write(`api failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
