/**
 * Export and import times and sizes of the benchmark's large tenant (10,000 persons, 100,000
 * registrations) as a tenant-archive/1, on its own PostgreSQL and Redis (loopback only):
 *   npx tsx test/bench/archive-bench.ts [--files-mb 256]
 * --files-mb adds that many MiB of random (incompressible) 1 MiB files to the tenant's file
 * store, to show that file bytes stream through without being held in memory.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { startLocalPostgres, startLocalRedis } from '../../src/platform/dev/local-services';
import { loadEnv } from '../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../src/container';
import { KNEX } from '../../src/platform/tokens';
import { migrateAll } from '../../src/platform/migrations/migrate-all';
import { hashPassword } from '../../src/platform/auth/password-hasher';
import { TenantImporter } from '../../src/tenancy/tenants/tenant-importer';
import { TenantAdminService } from '../../src/tenancy/tenants/tenant-admin.service';
import { FILE_STORE } from '../../src/platform/files/file-store';
import { schemaNameForSlug } from '../../src/platform/tenant-scope/tenant-db';
import { BENCH_PASSWORD, largeTenant } from './generate-tenants';

const { values: flags } = parseArgs({ options: { 'files-mb': { type: 'string', default: '256' } } });
const say = (m: string) => process.stderr.write(`[archive-bench] ${m}\n`);

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-bench-'));
  fs.chmodSync(work, 0o755);
  const pg = await startLocalPostgres({ dataDir: path.join(work, 'pg'), persistent: false, fsync: false });
  const redis = await startLocalRedis({ dir: path.join(work, 'redis') });
  const c = buildContainer(loadEnv({ LOG_LEVEL: 'warn', DATA_DIR: work }), { databaseUrl: pg.url, redisUrl: redis.url });
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  try {
    await migrateAll(c.resolve<Knex>(KNEX), { concurrency: 1 });
    say('importing the large tenant (tenant-import/1)');
    await c.resolve(TenantImporter).import(largeTenant(await hashPassword(BENCH_PASSWORD)), { onProgress: () => {} });
    const store = c.resolve(FILE_STORE);
    const filesMb = Number(flags['files-mb']);
    for (let i = 0; i < filesMb; i++) await store.put(schemaNameForSlug('large'), `bench${i}`, randomBytes(1024 * 1024));
    const admin = c.resolve(TenantAdminService);
    const file = path.join(work, 'large.tar.gz');
    peakRss = process.memoryUsage().rss;
    const before = peakRss;
    let t0 = Date.now();
    const end = await admin.exportArchive('large', fs.createWriteStream(file), { onProgress: () => {} });
    const exportSeconds = (Date.now() - t0) / 1000;
    const exportPeak = peakRss;
    peakRss = process.memoryUsage().rss;
    t0 = Date.now();
    await admin.importArchive(fs.createReadStream(file), { slug: 'large-copy', hosts: ['large-copy.bench.localhost'], onProgress: () => {} });
    const importSeconds = (Date.now() - t0) / 1000;
    const rows = Object.values(end.tables).reduce((a, b) => a + b, 0);
    const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
    console.table([
      {
        step: 'export tenant-archive/1',
        seconds: exportSeconds,
        rows,
        files: `${end.files} (${mib(end.file_bytes)})`,
        archive: mib(fs.statSync(file).size),
        'peak RSS': mib(exportPeak),
        'RSS before': mib(before),
      },
      { step: 'import under another slug', seconds: importSeconds, rows, files: `${end.files}`, archive: '', 'peak RSS': mib(peakRss), 'RSS before': '' },
    ]);
    say(`registrations: ${end.tables.person_competences}, persons: ${end.tables.persons}`);
  } finally {
    clearInterval(sampler);
    await closeContainer(c).catch(() => {});
    await redis.stop().catch(() => {});
    await pg.stop().catch(() => {});
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exitCode = 1;
});
