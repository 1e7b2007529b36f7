import http from 'node:http';
import type { DependencyContainer } from 'tsyringe';
import type { Logger } from 'pino';
import { buildApp } from './app';
import { ENV, LOGGER } from './platform/tokens';
import { TenantResolver } from './platform/tenant-scope/tenant-resolver';
import { PrincipalCache } from './platform/auth/principal-cache';
import { CLUSTERS } from './platform/clusters/clusters';
import { HttpDrain, type DrainReport } from './platform/lifecycle/http-drain';
import { TENANT_WARM_TABLES, warmTenantCatalogs } from './platform/db/catalog-warmup';
import { warmRequestPath } from './platform/lifecycle/request-path-warmup';
import { preloadRecentPersons, saveRecentPersons } from './platform/lifecycle/recent-persons';
import { announceApiListening } from './platform/processes/api-processes';

export interface RunningServer {
  server: http.Server;
  port: number;
  /** Drains (see HttpDrain), bounded by SHUTDOWN_GRACE_MS, then stops the caches' listeners. */
  close(): Promise<DrainReport>;
}

/** Listens, and on close stops taking connections and lets in-flight requests finish. */
export async function startServer(container: DependencyContainer, port?: number): Promise<RunningServer> {
  const env = container.resolve(ENV);
  const logger: Logger = container.resolve(LOGGER);
  // Before listening, so that the first requests after a start find what steady ones do: every
  // tenant in the cache and the connections of their clusters open.
  const tenants = container.resolve(TenantResolver);
  await tenants.start();
  const { read, ...preloaded } = await tenants.preload();
  const clusters = container.resolve(CLUSTERS);
  const up = preloaded.clusters.filter((name) => clusters.has(name));
  // best effort: a cluster that is down (or no longer declared) fails its own tenants' requests, not the start
  await Promise.all(
    up.map((name) =>
      clusters
        .pools(name)
        .openConnections()
        .catch((err) => logger.warn({ cluster: name, err: (err as Error).message }, 'could not open connections before ready')),
    ),
  );
  logger.info(preloaded, 'tenant cache preloaded, connections open');
  // the catalog of each tenant's first-request tables on each of its connections, bounded by STARTUP_WARMUP_MS
  const tables = container.isRegistered(TENANT_WARM_TABLES) ? [...new Set(container.resolveAll(TENANT_WARM_TABLES).flat())] : [];
  const perConnection = env.DATABASE_CONNECTION_MAX_TENANTS > 0 ? Math.floor(env.DATABASE_CONNECTION_MAX_TENANTS / 2) : Infinity;
  const warmed = await Promise.all(
    up.map((name) =>
      warmTenantCatalogs(
        clusters.pools(name),
        read.filter((t) => t.cluster === name),
        tables,
        { budgetMs: env.STARTUP_WARMUP_MS, perConnection },
      ).catch((err) => {
        logger.warn({ cluster: name, err: (err as Error).message }, 'catalog warm-up failed');
        return null;
      }),
    ),
  );
  logger.info({ warmed: warmed.filter(Boolean) }, 'tenant catalogs warmed');
  await container.resolve(PrincipalCache).start();
  // the persons the last processes served, into the caches (after the listener: what it announces from now on counts)
  logger.info(
    await preloadRecentPersons(container, logger, { limit: env.STARTUP_PRELOAD_PERSONS, budgetMs: env.STARTUP_WARMUP_MS }),
    'recent persons preloaded',
  );
  const app = buildApp(container);
  const drain = new HttpDrain(app);
  // V8 compiles the path every request takes before the first real one comes (anonymous: 401s)
  const warmHost = read.find((x) => x.host)?.host;
  if (warmHost) logger.info(await warmRequestPath(drain.listener, warmHost, ['/api/person'], env.STARTUP_WARMUP_REQUESTS), 'request path warmed');
  const server = http.createServer(drain.listener);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port ?? env.PORT, env.HOST, () => resolve());
  });
  const actual = (server.address() as import('node:net').AddressInfo).port;
  logger.info({ port: actual }, 'API listening');
  announceApiListening();
  return {
    server,
    port: actual,
    async close() {
      const report = await drain.drain(server, env.SHUTDOWN_GRACE_MS);
      if (report.cutOff > 0) logger.warn(report, 'shutdown grace over: requests still running were cut off');
      else logger.info(report, 'in-flight requests finished');
      const saved = await saveRecentPersons(container, env.STARTUP_PRELOAD_PERSONS).catch((err: Error) => {
        logger.warn({ err: err.message }, 'recent persons: could not keep them for the next start');
        return 0;
      });
      logger.info({ saved }, 'recent persons kept for the next start');
      await container.resolve(TenantResolver).stop();
      await container.resolve(PrincipalCache).stop();
      return report;
    },
  };
}
