// Tracing first: it must load before http, pg and ioredis do (src/platform/tracing/start-tracing.ts).
import './platform/tracing/init-api';
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
import { onShutdownSignal } from './platform/lifecycle/shutdown';
import { startApiProcesses } from './platform/processes/api-processes';
import { warnIfNodeEndOfLife } from './platform/lifecycle/node-support';
import { flushTracing } from './platform/tracing/start-tracing';

/** Ports of the services started when DATABASE_URL / REDIS_URL are not set. */
const LOCAL_PG_PORT = 54329;
const LOCAL_REDIS_PORT = 63799;

/**
 * `npm start`: the whole product on one machine. Starts PostgreSQL and Redis when none
 * are configured, migrates, imports the demo tenants (embedded PostgreSQL or DEMO_TENANTS=1), then runs the API and the workers.
 * The API runs in this process, or in WEB_CONCURRENCY processes sharing the port (node:cluster).
 */
async function main(): Promise<void> {
  const env = loadEnvOrExit();
  const logger = createLogger(env, 'main');
  const say = (m: string) => logger.info(m);
  warnIfNodeEndOfLife(logger);
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
  if (!redisUrl && !env.REDIS_CLUSTER_NODES) {
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
  const childEnv = { ...process.env, DATABASE_URL: databaseUrl, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) };
  // The workers boot before the API listens, not in its first seconds of serving: a boot (about a
  // second of CPU and a first sweep of every tenant's outbox) would make the first requests after
  // a start queue behind it on a small machine.
  const workers = startWorkerProcess(childEnv, logger, env.SHUTDOWN_GRACE_MS);
  let api: { close(): Promise<void>; port: number };
  try {
    await workers.ready;
    api = await startApi();
  } catch (err) {
    await workers.stop();
    throw err;
  }
  say(`ready: try  curl -H 'Host: acme.localhost' http://localhost:${api.port}/api/configitems/cors.origins`);

  // SIGTERM: no new requests (refused or 503), in-flight requests and running jobs finish (each at
  // most SHUTDOWN_GRACE_MS), then the connections close and the process exits 0.
  onShutdownSignal(logger, {
    drain: () => Promise.allSettled([api.close(), workers.stop()]),
    close: async () => {
      for (const s of local.reverse()) await s.stop().catch(() => {});
      await flushTracing();
    },
  });

  async function startApi(): Promise<{ close(): Promise<void>; port: number }> {
    if (env.WEB_CONCURRENCY > 1) {
      // each API process builds its own container; this one's work (migrations, demo seed) is done
      await closeContainer(container);
      const processes = await startApiProcesses({ count: env.WEB_CONCURRENCY, env: childEnv, logger });
      say(`${env.WEB_CONCURRENCY} API processes listening on port ${env.PORT}: ${processes.pids().join(', ')}`);
      return { close: () => processes.stop(), port: env.PORT };
    }
    const server = await startServer(container);
    return {
      port: server.port,
      async close() {
        await server.close();
        await closeContainer(container);
      },
    };
  }
}

main().catch((err) => {
  process.stderr.write(`startup failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
