import 'reflect-metadata';
import path from 'node:path';
import { loadEnvOrExit } from './platform/config/env';
import { createLogger } from './platform/logging/logger';
import { startLocalPostgres, startLocalRedis, type LocalService } from './platform/dev/local-services';
import { buildContainer, closeContainer } from './container';
import { migrateAll } from './platform/migrations/migrate-all';
import { KNEX } from './platform/tokens';
import { CLUSTERS } from './platform/clusters/clusters';
import { startServer } from './server';
import { seedDemoTenantsIfWanted } from '../seeds/demo-tenants';
import { startWorkerProcess } from './worker-process';

/** Ports of the services started when DATABASE_URL / REDIS_URL are not set. */
const LOCAL_PG_PORT = 54329;
const LOCAL_REDIS_PORT = 63799;

/**
 * `npm start`: the whole product on one machine. Starts PostgreSQL and Redis when none
 * are configured, migrates, imports the demo tenants (embedded PostgreSQL or DEMO_TENANTS=1), then runs the API and the workers.
 */
async function main(): Promise<void> {
  const env = loadEnvOrExit();
  const logger = createLogger(env, 'main');
  const say = (m: string) => logger.info(m);
  const local: LocalService[] = [];
  const dataDir = path.resolve(env.DATA_DIR);
  let databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    const pg = await startLocalPostgres({ dataDir: path.join(dataDir, 'postgres'), port: LOCAL_PG_PORT, persistent: true, log: say });
    local.push(pg);
    databaseUrl = pg.url;
    say(`DATABASE_URL not set: started local PostgreSQL at ${pg.url.replace(/:[^:@]*@/, ':***@')}`);
  }
  let redisUrl = env.REDIS_URL;
  if (!redisUrl) {
    const redis = await startLocalRedis({ dir: path.join(dataDir, 'redis'), port: LOCAL_REDIS_PORT, log: say });
    local.push(redis);
    redisUrl = redis.url;
    say(`REDIS_URL not set: started local Redis at ${redis.url}`);
  }
  const container = buildContainer(env, { databaseUrl, redisUrl }, logger);
  const report = await migrateAll(container.resolve(KNEX), { concurrency: env.MIGRATE_CONCURRENCY, onProgress: say, clusters: container.resolve(CLUSTERS) });
  if (!report.ok) logger.error('some tenants failed to migrate; see above');
  // env, not the resolved URL: an embedded PostgreSQL is a developer's machine, so the demo is wanted.
  await seedDemoTenantsIfWanted(container, env, say);
  const server = await startServer(container);
  const workers = startWorkerProcess({ ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl }, logger);
  say(`ready: try  curl -H 'Host: acme.localhost' http://localhost:${server.port}/api/configitems/cors.origins`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: shutting down`);
    await Promise.allSettled([server.close(), workers.stop()]);
    await closeContainer(container);
    for (const s of local.reverse()) await s.stop().catch(() => {});
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`startup failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
