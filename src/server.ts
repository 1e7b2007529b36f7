import http from 'node:http';
import type { DependencyContainer } from 'tsyringe';
import type { Logger } from 'pino';
import { buildApp } from './app';
import { ENV, LOGGER } from './platform/tokens';
import { TenantResolver } from './platform/tenancy/tenant-resolver';
import { PrincipalCache } from './platform/auth/principal-cache';
import { HttpDrain, type DrainReport } from './platform/lifecycle/http-drain';

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
  await container.resolve(TenantResolver).start();
  await container.resolve(PrincipalCache).start();
  const app = buildApp(container);
  const drain = new HttpDrain(app);
  const server = http.createServer(drain.listener);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port ?? env.PORT, env.HOST, () => resolve());
  });
  const actual = (server.address() as import('node:net').AddressInfo).port;
  logger.info({ port: actual }, 'API listening');
  return {
    server,
    port: actual,
    async close() {
      const report = await drain.drain(server, env.SHUTDOWN_GRACE_MS);
      if (report.cutOff > 0) logger.warn(report, 'shutdown grace over: requests still running were cut off');
      else logger.info(report, 'in-flight requests finished');
      await container.resolve(TenantResolver).stop();
      await container.resolve(PrincipalCache).stop();
      return report;
    },
  };
}
