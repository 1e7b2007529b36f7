/**
 * Investigation tool (issue 22 point 6): provisions N bench tenants (spare schemas, then their
 * first rows) into a persistent PostgreSQL + Redis under DIR once, so that `scale-measure.ts` can
 * compare K tenants in turn against the same catalog without provisioning again.
 *   npx tsx test/bench/scale-probe.ts DIR 3000          # provision (adds what is missing), then stop
 *   npx tsx test/bench/scale-probe.ts DIR 0 serve       # run PostgreSQL (port 55432) and Redis until SIGTERM
 */
import fs from 'node:fs';
import path from 'node:path';
import { startLocalPostgres, startLocalRedis } from '../../src/platform/dev/local-services';
import { loadEnv } from '../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../src/container';
import { KNEX } from '../../src/platform/tokens';
import { migrateAll, forEachBounded } from '../../src/platform/migrations/migrate-all';
import { TenantImporter } from '../../src/tenancy/tenants/tenant-importer';
import { SpareSchemas } from '../../src/tenancy/tenants/placement/spare-schemas';
import { hashPassword } from '../../src/platform/auth/password-hasher';
import { BENCH_PASSWORD, smallTenant } from './generate-tenants';

async function main() {
  const [dir, nStr, mode] = process.argv.slice(2);
  const n = Number(nStr);
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755);
  const pg = await startLocalPostgres({
    dataDir: path.join(dir, 'pg'),
    port: 55432,
    persistent: true,
    fsync: false,
    extraFlags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'track_io_timing=on'],
  });
  const redis = await startLocalRedis({ dir: path.join(dir, 'redis') });
  console.log(JSON.stringify({ pg: pg.url, redis: redis.url }));
  if (mode === 'serve') {
    fs.writeFileSync(path.join(dir, 'urls.json'), JSON.stringify({ pg: pg.url, redis: redis.url }));
    await new Promise((r) => process.once('SIGTERM', r));
    await redis.stop();
    await pg.stop();
    return;
  }
  const env = loadEnv({ LOG_LEVEL: 'warn', TENANT_SPARE_SCHEMAS: '0' });
  const c = buildContainer(env, { databaseUrl: pg.url, redisUrl: redis.url });
  const knex = c.resolve(KNEX) as any;
  await migrateAll(knex, { concurrency: 4 });
  const have = (await knex.raw('select count(*)::int n from platform.tenants')).rows[0].n;
  const hash = await hashPassword(BENCH_PASSWORD);
  const spares = c.resolve(SpareSchemas);
  const adding = n - have;
  let t0 = Date.now();
  await spares.topUp('main', adding, 2, (k, of) => k % 500 === 0 && console.log(`${k}/${of} spares ${((Date.now() - t0) / 1000).toFixed(0)}s`));
  console.log(`spares ${adding} in ${(Date.now() - t0) / 1000}s`);
  t0 = Date.now();
  const release = spares.hold();
  await forEachBounded(
    Array.from({ length: adding }, (_, i) => have + i + 1),
    4,
    async (i) => {
      await importer(c).import(smallTenant(i, hash), { cluster: 'main', onProgress: () => {} });
    },
  );
  release();
  console.log(`imports ${adding} in ${(Date.now() - t0) / 1000}s`);
  await closeContainer(c);
  await redis.stop();
  await pg.stop();
}
const importer = (c: any) => c.resolve(TenantImporter) as TenantImporter;
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
