import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Knex } from 'knex';
import { startLocalPostgres, startLocalRedis, freePort } from '../../src/platform/dev/local-services';
import { loadEnv } from '../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../src/container';
import { KNEX } from '../../src/platform/tokens';
import { CLUSTERS } from '../../src/platform/clusters/clusters';
import { migrateAll, forEachBounded } from '../../src/platform/migrations/migrate-all';
import { tenantMigrations } from '../../migrations/tenant';
import { TenantImporter } from '../../src/tenancy/tenants/tenant-importer';
import { SpareSchemas } from '../../src/tenancy/tenants/placement/spare-schemas';
import { hashPassword } from '../../src/platform/auth/password-hasher';
import { BENCH_PASSWORD, BENCH_SECRET, smallTenant } from './generate-tenants';
import { PeakSampler, commOf, cpuSeconds, descendantsOf, pidsMatching } from './proc-stats';
import { startFlags } from './start-flags';

/**
 * `npm run bench -- --tenants 10000` (any count above 1,000): the scale comparison of issue 22.
 * Provisions 1,000 tenants (spare schemas first, then the tenants' first rows through the
 * importer), measures, grows to --tenants and measures again, then prints both side by side:
 * GET /api/person with SWT spread over all tenants (steady state: every tenant requested once
 * before the timed run, then --warmup seconds), one migration over all tenants, PostgreSQL PSS.
 */
export interface ScaleOptions {
  tenants: number;
  base: number;
  duration: number;
  warmup: number;
  connections: number;
  out: string;
  runLoad: (config: any) => Promise<any>;
  say: (m: string) => void;
  /** Seconds of no traffic measured after the API is up (0: none), starting `idleSettle` s after it answered. */
  idle: number;
  idleSettle: number;
}

interface Stage {
  tenants: number;
  spareSeconds: number;
  importSeconds: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  migrationSeconds: number;
  migrationErrors: number;
  pssMiB: number;
  rssMiB: number;
  settleSeconds: number;
  /** 1-minute load average of the machine at the start and end of the timed run */
  load: [number, number];
  /** CPU cores at rest per group (api, postgres, redis, workers); null when --idle 0. */
  idle: Record<string, number> | null;
}

const loadAverage = () => Number(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

/**
 * Steady state for PostgreSQL: after thousands of schemas the catalogs (GBs at 10,000 tenants)
 * are being autovacuumed and analysed, and a checkpoint is due. Measuring during that measures
 * the aftermath of provisioning, so wait (at most 5 minutes) until no autovacuum worker runs,
 * then checkpoint. Returns the seconds waited.
 */
async function settle(knex: Knex): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < 300_000) {
    const { rows } = await knex.raw("select count(*)::int as n from pg_stat_activity where backend_type = 'autovacuum worker'");
    if (rows[0].n === 0) break;
    await sleep(2000);
  }
  await knex.raw('checkpoint');
  return (Date.now() - t0) / 1000;
}

const TSX = ['--import', 'tsx'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function swt(): string {
  const body = `Issuer=bench&ExpiresOn=${Math.floor(Date.now() / 1000) + 7200}&username=user`;
  const sig = createHmac('sha256', Buffer.from(BENCH_SECRET, 'utf8')).update(body).digest('base64');
  return `SWT ${body}&HMACSHA256=${encodeURIComponent(sig)}`;
}

async function waitFor(url: string, timeoutMs = 300_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${url}`);
}

export async function runScaleBench(o: ScaleOptions): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-scale-'));
  fs.chmodSync(work, 0o755);
  const pg = await startLocalPostgres({ dataDir: path.join(work, 'pg'), persistent: false, fsync: false });
  const redis = await startLocalRedis({ dir: path.join(work, 'redis') });
  const env = loadEnv({ LOG_LEVEL: 'warn', TENANT_SPARE_SCHEMAS: '0', API_RATE_LIMIT_CEILING_PER_MINUTE: '0' });
  const c = buildContainer(env, { databaseUrl: pg.url, redisUrl: redis.url });
  const knex: Knex = c.resolve(KNEX);
  const stages: Stage[] = [];
  let api: ChildProcess | null = null;
  try {
    await migrateAll(knex, { concurrency: 4 });
    const hash = await hashPassword(BENCH_PASSWORD);
    const importer = c.resolve(TenantImporter);
    const spares = c.resolve(SpareSchemas);
    let have = 0;
    const applied = [...tenantMigrations];
    for (const target of [o.base, o.tenants]) {
      const adding = target - have;
      o.say(`growing to ${target} tenants: ${adding} spare schemas first`);
      let t0 = Date.now();
      await spares.topUp('main', adding, 2, (n, of) => n % 1000 === 0 && o.say(`  ${n}/${of} spare schemas`));
      const spareSeconds = (Date.now() - t0) / 1000;
      o.say(`  ${adding} spare schemas in ${spareSeconds.toFixed(0)} s (${(adding / spareSeconds).toFixed(1)}/s); importing the tenants' first rows`);
      t0 = Date.now();
      const release = spares.hold();
      let done = 0;
      await forEachBounded(
        Array.from({ length: adding }, (_, i) => have + i + 1),
        4,
        async (i) => {
          await importer.import(smallTenant(i, hash), { cluster: 'main', onProgress: () => {} });
          if (++done % 1000 === 0) o.say(`  ${done}/${adding} tenants`);
        },
      );
      release();
      const importSeconds = (Date.now() - t0) / 1000;
      o.say(`  ${adding} tenants created from spares in ${importSeconds.toFixed(0)} s (${(adding / importSeconds).toFixed(1)}/s)`);
      have = target;
      const settleSeconds = await settle(knex);
      o.say(`  PostgreSQL settled (autovacuum idle, checkpoint) in ${settleSeconds.toFixed(0)} s`);

      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      api = spawn(process.execPath, [...startFlags(path.resolve(__dirname, '../..')), ...TSX, path.resolve(__dirname, '../../src/main.ts')], {
        env: {
          ...process.env,
          PORT: String(port),
          DATABASE_URL: pg.url,
          REDIS_URL: redis.url,
          LOG_LEVEL: 'warn',
          HOST: '127.0.0.1',
          DEMO_TENANTS: '0',
          TENANT_SPARE_SCHEMAS: '0',
          API_RATE_LIMIT_CEILING_PER_MINUTE: '0',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      await waitFor(`${base}/readyz`);
      const idle = o.idle > 0 ? await idleCores(api.pid!, path.join(work, 'pg'), o.idleSettle, o.idle) : null;
      if (idle)
        o.say(
          `  idle ${o.idle} s from ${o.idleSettle} s after start: ${sum(idle).toFixed(3)} cores (${Object.entries(idle)
            .map(([k, v]) => `${k} ${v.toFixed(3)}`)
            .join(', ')})`,
        );
      const token = swt();
      const requests = Array.from({ length: target }, (_, i) => ({
        method: 'GET',
        path: '/api/person',
        headers: { Host: `bench${String(i + 1).padStart(4, '0')}.bench.localhost`, Authorization: token },
      }));
      // Steady state: every tenant once (cold: its first rows, catalog entries and caches), then once
      // more, since with many tenants the first pass can outlast a cache TTL and leave its first
      // tenants cold again; then --warmup seconds.
      o.say(`  warm-up: every tenant twice, then ${o.warmup} s`);
      for (const pass of [1, 2]) {
        const w = await o.runLoad({ url: base, requests, amount: target, connections: o.connections });
        o.say(`    pass ${pass}: ${w.durationSeconds.toFixed(0)} s, ${w.requestsPerSecond.toFixed(0)} req/s, p50 ${w.p50} ms, p99 ${w.p99} ms`);
      }
      if (o.warmup > 0) await o.runLoad({ url: base, requests, duration: o.warmup, connections: o.connections });
      const sampler = new PeakSampler({ postgres: () => pidsMatching(path.join(work, 'pg')) });
      sampler.start();
      const load0 = loadAverage();
      const r = await o.runLoad({ url: base, requests, duration: o.duration, connections: o.connections });
      sampler.stop();
      const load: [number, number] = [load0, loadAverage()];
      o.say(
        `  GET /api/person over ${target} tenants: ${r.requestsPerSecond.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors + r.non2xx}`,
      );
      api.kill('SIGTERM');
      await new Promise((res) => api!.once('exit', res));
      api = null;

      // the tenants added since the last stage catch up first (untimed), then one new migration is timed
      if (applied.length > tenantMigrations.length) await migrateAll(knex, { concurrency: 4, clusters: c.resolve(CLUSTERS), tenantMigrations: applied });
      const n = applied.length - tenantMigrations.length + 1;
      applied.push({
        name: `999_bench_probe_${n}`,
        up: async (trx: Knex.Transaction) => void (await trx.schema.alterTable('persons', (tb) => tb.text(`bench_probe_${n}`))),
      });
      t0 = Date.now();
      const report = await migrateAll(knex, { concurrency: 4, clusters: c.resolve(CLUSTERS), tenantMigrations: applied });
      const migrationSeconds = (Date.now() - t0) / 1000;
      o.say(`  one migration over ${report.tenants.length} tenants: ${migrationSeconds.toFixed(1)} s`);
      stages.push({
        tenants: target,
        spareSeconds,
        importSeconds,
        rps: r.requestsPerSecond,
        p50: r.p50,
        p99: r.p99,
        errors: r.errors + r.non2xx,
        migrationSeconds,
        migrationErrors: report.tenants.filter((x) => x.error).length,
        pssMiB: (sampler.pssPeaks.get('postgres') ?? 0) / 2 ** 20,
        rssMiB: (sampler.peaks.get('postgres') ?? 0) / 2 ** 20,
        settleSeconds,
        load,
        idle,
      });
    }
  } finally {
    if (api) api.kill('SIGTERM');
    await sleep(1500);
    await closeContainer(c).catch(() => {});
    await redis.stop().catch(() => {});
    await pg.stop().catch(() => {});
    fs.rmSync(work, { recursive: true, force: true });
  }
  const table = renderScale(stages);
  fs.mkdirSync(o.out, { recursive: true });
  fs.writeFileSync(path.join(o.out, 'bench-scale.json'), JSON.stringify(stages, null, 2));
  fs.writeFileSync(path.join(o.out, 'bench-scale.md'), table);
  process.stdout.write(`\n${table}\n`);
}

export function renderScale(stages: Stage[]): string {
  const [a, b] = stages;
  const row = (name: string, f: (s: Stage) => string, ratio?: (s: Stage) => number) =>
    `| ${name} | ${stages.map(f).join(' | ')} |${ratio && b ? ` ${(ratio(b) / ratio(a)).toFixed(2)}x |` : ' |'}`;
  return [
    `| | ${stages.map((s) => `${s.tenants} tenants`).join(' | ')} | ratio |`,
    `|---|${stages.map(() => '---').join('|')}|---|`,
    row(
      'GET /api/person (SWT, all tenants) req/s',
      (s) => s.rps.toFixed(0),
      (s) => s.rps,
    ),
    row(
      'p50 ms',
      (s) => String(s.p50),
      (s) => s.p50,
    ),
    row(
      'p99 ms (target: at most 1.5x)',
      (s) => String(s.p99),
      (s) => s.p99,
    ),
    row('errors', (s) => String(s.errors)),
    row(
      'one migration over all tenants, s (target < 60)',
      (s) => s.migrationSeconds.toFixed(1),
      (s) => s.migrationSeconds,
    ),
    row(
      'PostgreSQL PSS peak, MiB',
      (s) => s.pssMiB.toFixed(0),
      (s) => s.pssMiB,
    ),
    row('PostgreSQL RSS peak (sum of backends), MiB', (s) => s.rssMiB.toFixed(0)),
    row('spare schemas made, per s', (s, i = stages.indexOf(s)) => ((s.tenants - (i ? stages[i - 1].tenants : 0)) / s.spareSeconds).toFixed(1)),
    row('tenants created from spares, per s', (s, i = stages.indexOf(s)) => ((s.tenants - (i ? stages[i - 1].tenants : 0)) / s.importSeconds).toFixed(1)),
    row('idle cores, api + postgres + redis + workers (target < 0.02)', (s) =>
      s.idle
        ? `${sum(s.idle).toFixed(3)} (${Object.values(s.idle)
            .map((v) => v.toFixed(3))
            .join(' / ')})`
        : 'not measured',
    ),
    row('machine load average (1 min), start / end of the timed run', (s) => `${s.load[0].toFixed(1)} / ${s.load[1].toFixed(1)}`),
  ].join('\n');
}

const sum = (v: Record<string, number>) => Object.values(v).reduce((a, b) => a + b, 0);

/**
 * CPU cores each group used over `seconds` of no traffic, from `settle` s after the API answered:
 * the API process, its worker processes, PostgreSQL (closed backends count in the postmaster's
 * reaped time) and Redis. The idle target of issue 23 holds at any tenant count.
 */
async function idleCores(apiPid: number, pgDir: string, settle: number, seconds: number): Promise<Record<string, number>> {
  const groups: Record<string, () => number[]> = {
    api: () => [apiPid],
    postgres: () => pidsMatching(pgDir),
    redis: () => descendantsOf(process.pid).filter((p) => commOf(p) === 'redis-server'),
    workers: () => descendantsOf(apiPid).filter((p) => p !== apiPid),
  };
  const snapshot = () => Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, new Map(pids().map((p) => [p, cpuSeconds(p, { reaped: true })]))]));
  await sleep(settle * 1000);
  const c0 = snapshot();
  const t0 = Date.now();
  await sleep(seconds * 1000);
  const c1 = snapshot();
  const elapsed = (Date.now() - t0) / 1000;
  const total = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return Object.fromEntries(Object.keys(groups).map((k) => [k, (total(c1[k]) - total(c0[k])) / elapsed]));
}
