import 'reflect-metadata';
import { loadEnv } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/logging/logger';
import { buildContainer } from '../../src/container';
import { startServer } from '../../src/server';
import { TenantResolver } from '../../src/platform/tenant-scope/tenant-resolver';

/**
 * The API part of `npm start` (same container and server, no workers) for host-flood.ts,
 * run with --expose-gc: on the message "measure" it collects garbage and reports its memory,
 * so RSS compares live data, not how much garbage V8 happened to hold at that moment.
 */
async function main() {
  const env = loadEnv();
  const container = buildContainer(env, { databaseUrl: env.DATABASE_URL!, redisUrl: env.REDIS_URL! }, createLogger(env, 'api'));
  const server = await startServer(container);
  process.on('message', (m) => {
    if (m !== 'measure') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    const raw = process.memoryUsage().rss;
    gc?.();
    gc?.();
    const mem = process.memoryUsage();
    process.send!({ rawRss: raw, rss: mem.rss, heapUsed: mem.heapUsed, caches: container.resolve(TenantResolver).cacheSizes() });
  });
  process.send!({ port: server.port });
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
