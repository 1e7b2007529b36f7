import http from 'node:http';
import type { DependencyContainer } from 'tsyringe';
import type { Logger } from 'pino';
import { buildApp } from './app';
import { ENV, LOGGER } from './platform/tokens';
import { TenantResolver } from './platform/tenancy/tenant-resolver';
import { PrincipalCache } from './platform/auth/principal-cache';

export interface RunningServer {
  server: http.Server;
  port: number;
  close(): Promise<void>;
}

/** Listens, and on close stops taking connections and lets in-flight requests finish. */
export async function startServer(container: DependencyContainer, port?: number): Promise<RunningServer> {
  const env = container.resolve(ENV);
  const logger: Logger = container.resolve(LOGGER);
  await container.resolve(TenantResolver).start();
  await container.resolve(PrincipalCache).start();
  const app = buildApp(container);
  const server = http.createServer(app);
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
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 10_000).unref();
      });
      await container.resolve(TenantResolver).stop();
      await container.resolve(PrincipalCache).stop();
    },
  };
}
