import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { SMTPServer } from 'smtp-server';
import type { Knex } from 'knex';
import { startLocalPostgres, startLocalRedis, freePort } from '../../src/platform/dev/local-services';
import { loadEnv } from '../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../src/container';
import { KNEX } from '../../src/platform/tokens';
import { migrateAll, forEachBounded } from '../../src/platform/migrations/migrate-all';
import { tenantMigrations } from '../../migrations/tenant';
import { TenantImporter } from '../../src/tenants/tenant-importer';
import { hashPassword } from '../../src/platform/auth/password-hasher';
import { BENCH_PASSWORD, BENCH_SECRET, largeTenant, smallTenant } from './generate-tenants';
import { PeakSampler, cpuSeconds, pidsMatching } from './proc-stats';
import { renderTable, type Row } from './report';

/**
 * npm run bench -- [--tenants 1000] [--duration 10] [--connections 32] [--out bench-results]
 * Starts the product as a user would, provisions the tenants, measures every scenario
 * against the ceiling of a bare express app, and writes JSON + markdown.
 *
 * For profiling one scenario again and again:
 *   --data DIR          keep Postgres and Redis data in DIR; a later run with the same DIR
 *                       skips provisioning (and its rows)
 *   --only REGEX        run only the scenarios whose name matches (the ceiling always runs)
 *   --warmup S          run each timed scenario untimed for S seconds first (steady state)
 *   --top-statements    load pg_stat_statements and print the statements that took most time
 *   --api-node-args=S   extra node flags for the API process, e.g. --api-node-args="--cpu-prof --cpu-prof-dir=prof"
 */
const { values: flags } = parseArgs({
  options: {
    tenants: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    out: { type: 'string', default: 'bench-results' },
    data: { type: 'string' },
    only: { type: 'string' },
    'api-node-args': { type: 'string', default: '' },
    'top-statements': { type: 'boolean', default: false },
    warmup: { type: 'string', default: '0' },
  },
});
const T = Number(flags.tenants);
const DURATION = Number(flags.duration);
const CONNECTIONS = Number(flags.connections);
const WARMUP = Number(flags.warmup);
const say = (m: string) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
const TSX = ['--import', 'tsx'];
const ONLY = flags.only ? new RegExp(flags.only, 'i') : null;
const wanted = (scenario: string) => !ONLY || ONLY.test(scenario);
const PROVISIONED_MARK = 'provisioned.json';

const WORKERS_ENTRY = 'workers/main.ts';
/** CPU seconds so far of every process in each group, by pid. */
const cpuOf = <K extends string>(groups: Record<K, () => number[]>) =>
  Object.fromEntries(Object.entries<() => number[]>(groups).map(([k, pids]) => [k, new Map(pids().map((p) => [p, cpuSeconds(p)]))])) as Record<K, Map<number, number>>;

function runLoad(config: object): Promise<any> {
  const file = path.join(os.tmpdir(), `bench-load-${process.pid}-${Date.now()}.json`);
  fs.writeFileSync(file, JSON.stringify(config));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TSX, path.join(__dirname, 'load-worker.ts'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      fs.rmSync(file, { force: true });
      if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`load worker exited ${code}`));
    });
  });
}

async function waitFor(url: string, headers: Record<string, string> = {}, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const r = await fetch(url, { headers });
      if (r.ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${url}`);
}

function swtToken(userName: string): string {
  const body = `Issuer=bench&ExpiresOn=4102444800&username=${userName}`;
  const sig = createHmac('sha256', Buffer.from(BENCH_SECRET, 'utf8')).update(body).digest('base64');
  return `${body}&HMACSHA256=${encodeURIComponent(sig)}`;
}

/** node:http, because fetch() does not let a caller set the Host header. */
function login(base: string, host: string, userName: string, password: string): Promise<string> {
  const body = JSON.stringify({ user_name: userName, password, login: 1 });
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/api/login`, { method: 'POST', headers: { Host: host, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        const cookie = res.headers['set-cookie']?.find((c) => c.startsWith('tg-visit='));
        if (res.statusCode !== 200 || !cookie) reject(new Error(`login ${userName}@${host} failed: ${res.statusCode} ${text}`));
        else resolve(cookie.split(';')[0]);
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function printTopStatements(knex: Knex): Promise<void> {
  const { rows } = await knex.raw(
    `select calls, round(total_exec_time::numeric, 0) as exec_ms, round(total_plan_time::numeric, 0) as plan_ms,
            round((total_exec_time / calls)::numeric, 3) as mean_ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) as query
       from public.pg_stat_statements order by total_exec_time + total_plan_time desc limit 25`,
  );
  say('top statements by time (pg_stat_statements):');
  console.table(rows);
}

async function main() {
  const work = flags.data ? path.resolve(flags.data) : fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  fs.mkdirSync(work, { recursive: true });
  fs.chmodSync(work, 0o755);
  const reuse = fs.existsSync(path.join(work, PROVISIONED_MARK));
  if (reuse && JSON.parse(fs.readFileSync(path.join(work, PROVISIONED_MARK), 'utf8')).tenants !== T) throw new Error(`${work} was provisioned with another --tenants`);
  const rows: Row[] = [];
  const extra: Record<string, unknown> = { tenants: T, duration: DURATION, connections: CONNECTIONS, cores: os.cpus().length };
  const children: ChildProcess[] = [];
  say(`work dir ${work}; ${T} tenants, ${DURATION}s per scenario, ${CONNECTIONS} connections`);
  const pg = await startLocalPostgres({ dataDir: path.join(work, 'pg'), persistent: Boolean(flags.data), fsync: false, extraFlags: flags['top-statements'] ? ['-c', 'shared_preload_libraries=pg_stat_statements'] : [] });
  const redis = await startLocalRedis({ dir: path.join(work, 'redis') });
  let mailCount = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, cb) {
      stream.on('data', () => {});
      stream.on('end', () => {
        mailCount++;
        cb();
      });
    },
  });
  const smtpPort = await freePort();
  await new Promise<void>((r) => smtp.listen(smtpPort, '127.0.0.1', () => r()));
  const env = loadEnv({ LOG_LEVEL: 'warn' });
  const c = buildContainer(env, { databaseUrl: pg.url, redisUrl: redis.url });
  const knex: Knex = c.resolve(KNEX);
  try {
    if (reuse) say(`reusing the tenants provisioned in ${work}`);
    else {
      await migrateAll(knex, { concurrency: 4 });
      // Provisioning: T tenants through the importer (large one included).
      const hash = await hashPassword(BENCH_PASSWORD);
      const importer = c.resolve(TenantImporter);
      let t0 = Date.now();
      let done = 0;
      await forEachBounded(
        Array.from({ length: T - 1 }, (_, i) => i + 1),
        4,
        async (i) => {
          await importer.import(smallTenant(i, hash), { onProgress: () => {} });
          if (++done % 100 === 0) say(`provisioned ${done}/${T - 1} small tenants`);
        },
      );
      const smallSeconds = (Date.now() - t0) / 1000;
      say(`generating and importing the large tenant`);
      t0 = Date.now();
      await importer.import(largeTenant(hash), { onProgress: say });
      const largeSeconds = (Date.now() - t0) / 1000;
      rows.push({ scenario: `create + migrate ${T - 1} small tenants`, seconds: smallSeconds, note: `${((T - 1) / smallSeconds).toFixed(1)} tenants/s` });
      rows.push({ scenario: 'import large tenant (10k persons, 100k registrations)', seconds: largeSeconds });
      t0 = Date.now();
      const probe = {
        name: '999_bench_probe',
        up: async (trx: Knex.Transaction) => {
          await trx.schema.alterTable('persons', (tb) => tb.text('bench_probe'));
        },
      };
      const report = await migrateAll(knex, { concurrency: 4, tenantMigrations: [...tenantMigrations, probe] });
      rows.push({ scenario: `apply one new migration to ${report.tenants.length} tenants`, seconds: (Date.now() - t0) / 1000, errors: report.tenants.filter((x) => x.error).length });
      fs.writeFileSync(path.join(work, PROVISIONED_MARK), JSON.stringify({ tenants: T }));
    }

    if (flags['top-statements']) await knex.raw('create extension if not exists pg_stat_statements with schema public');
    // The product, started as a user would.
    const port = await freePort();
    const apiNodeArgs = flags['api-node-args']!.split(/\s+/).filter(Boolean);
    const api = spawn(process.execPath, [...apiNodeArgs, ...TSX, path.resolve(__dirname, '../../src/main.ts')], {
      env: { ...process.env, PORT: String(port), DATABASE_URL: pg.url, REDIS_URL: redis.url, SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, LOG_LEVEL: 'warn', HOST: '127.0.0.1' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(api);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/readyz`);
    const sampler = new PeakSampler({ api: () => [api.pid!], postgres: () => pidsMatching(path.join(work, 'pg')) });
    sampler.start();
    if (flags['top-statements']) await knex.raw('select public.pg_stat_statements_reset()');

    const ceilingPort = await freePort();
    const ceiling = spawn(process.execPath, [...TSX, path.join(__dirname, 'ceiling-server.ts'), String(ceilingPort)], { stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(ceiling);
    await waitFor(`http://127.0.0.1:${ceilingPort}/`);
    const measure = async (scenario: string, config: { url: string; requests: any[]; amount?: number }, ceilingRps?: number): Promise<Row | null> => {
      if (ceilingRps !== undefined && !wanted(scenario)) return null;
      const groups = { api: () => [api.pid!], postgres: () => pidsMatching(path.join(work, 'pg')), workers: () => pidsMatching(WORKERS_ENTRY) };
      if (WARMUP > 0 && !config.amount) await runLoad({ connections: CONNECTIONS, ...config, duration: WARMUP });
      const cpu0 = cpuOf(groups);
      const r = await runLoad({ connections: CONNECTIONS, duration: DURATION, ...config });
      const cpu1 = cpuOf(groups);
      // processes started during the run (new pool connections) count from zero
      const cores = (k: keyof typeof groups) => [...cpu1[k]].reduce((s, [pid, t]) => s + t - (cpu0[k].get(pid) ?? 0), 0) / r.durationSeconds;
      const cpu = { api: cores('api'), postgres: cores('postgres'), workers: cores('workers') };
      const row: Row = { scenario, rps: r.requestsPerSecond, p50: r.p50, p99: r.p99, errors: r.errors + r.non2xx, ratio: ceilingRps ? r.requestsPerSecond / ceilingRps : 1, cpu };
      rows.push(row);
      say(`${scenario}: ${r.requestsPerSecond.toFixed(0)} req/s, p99 ${r.p99} ms, errors ${row.errors}, CPU api ${cpu.api.toFixed(2)} postgres ${cpu.postgres.toFixed(2)} workers ${cpu.workers.toFixed(2)}`);
      return row;
    };
    const ceilingRow = await measure('ceiling: bare express, fixed envelope', { url: `http://127.0.0.1:${ceilingPort}`, requests: [{ method: 'GET', path: '/' }] });
    ceiling.kill('SIGTERM');
    const ceil = ceilingRow!.rps!;

    const hosts = Array.from({ length: T - 1 }, (_, i) => smallTenant(i + 1, '').tenant.hosts[0]);
    const cookies: string[] = [];
    if (wanted('GET /api/person, session, all tenants')) {
      say('logging in on every small tenant');
      await forEachBounded(hosts, 8, async (h) => {
        cookies.push(`${h}|${await login(base, h, 'user', BENCH_PASSWORD)}`);
      });
    }
    await measure('GET /api/person, session, all tenants', { url: base, requests: cookies.map((hc) => { const [h, ck] = hc.split('|'); return { method: 'GET', path: '/api/person', headers: { Host: h, Cookie: ck } }; }) }, ceil);
    await measure('GET /api/person, SWT, all tenants', { url: base, requests: hosts.map((h) => ({ method: 'GET', path: '/api/person', headers: { Host: h, Authorization: `SWT ${swtToken('user')}` } })) }, ceil);

    const large = 'large.bench.localhost';
    const largeCookie = await login(base, large, 'p0', BENCH_PASSWORD);
    const rootOrg = (await knex.withSchema('tenant_large').table('organisations').whereNull('parent_id').first('id')).id;
    const H = { Host: large, Cookie: largeCookie };
    await measure('GET /api/persons?organisation_id&recursive (large)', { url: base, requests: [{ method: 'GET', path: `/api/persons?organisation_id=${rootOrg}&recursive=1&limit=100`, headers: H }] }, ceil);
    await measure('GET /api/personcompetences?state=missing (5 roles)', { url: base, requests: [{ method: 'GET', path: '/api/personcompetences?state=missing&user_name=p0', headers: H }] }, ceil);
    await measure('GET /api/events?mode=future&view=full (large)', { url: base, requests: [{ method: 'GET', path: '/api/events?mode=future&view=full', headers: H }] }, ceil);
    const smallEvents: number[] = await knex.withSchema('tenant_large').table('events').where('max_participants', 2).where('starts_at', '>', new Date()).orderBy('id').limit(50).pluck('id');
    const signons = smallEvents.flatMap((e, i) => Array.from({ length: 20 }, (_, k) => ({ method: 'POST', path: `/api/personevents/${e}`, headers: { ...H, 'Content-Type': 'application/json' }, body: JSON.stringify({ user_name: `p${1 + ((i * 20 + k) % 9999)}` }) })));
    await measure('POST /api/personevents bursts (2 seats each)', { url: base, requests: signons, amount: signons.length }, ceil);
    const overbooked: unknown[] = await knex.withSchema('tenant_large').table('person_events').whereIn('event_id', smallEvents).where('status', 'signed_on').groupBy('event_id').havingRaw('count(*) > 2').select('event_id');
    extra.oversoldEvents = overbooked.length;

    const N = 5000;
    const before = mailCount;
    if (wanted('POST /api/messages (5,000, e-mail)')) {
    const msgs = Array.from({ length: N }, (_, i) => ({ method: 'POST', path: '/api/messages', headers: { ...H, 'Content-Type': 'application/json' }, body: JSON.stringify({ user_name: `p${1 + (i % 9999)}`, title: `Bench ${i}`, text: 'Benchmark message', send_medium: 'email' }) }));
    const m0 = Date.now();
    const posted = await measure('POST /api/messages (5,000, e-mail)', { url: base, requests: msgs, amount: N }, ceil);
    const accepted = N - (posted!.errors ?? 0);
    const until = Date.now() + 300_000;
    while (mailCount - before < accepted && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    const mailSeconds = (Date.now() - m0) / 1000;
    rows.push({ scenario: 'messages end to end to the SMTP sink', seconds: mailSeconds, rps: (mailCount - before) / mailSeconds, errors: accepted - (mailCount - before), note: `${mailCount - before} of ${accepted} accepted delivered` });
    }
    sampler.stop();
    if (flags['top-statements']) await printTopStatements(knex);
    extra.peakRssApiMiB = (sampler.peaks.get('api') ?? 0) / 2 ** 20;
    extra.peakRssPostgresMiB = (sampler.peaks.get('postgres') ?? 0) / 2 ** 20;
    // RSS summed over backends counts shared buffers once per backend; PSS shares them out
    extra.peakPssPostgresMiB = (sampler.pssPeaks.get('postgres') ?? 0) / 2 ** 20;
  } finally {
    for (const ch of children) ch.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    await closeContainer(c).catch(() => {});
    smtp.close();
    await redis.stop().catch(() => {});
    await pg.stop().catch(() => {});
  }
  const table = renderTable(rows, extra);
  fs.mkdirSync(flags.out!, { recursive: true });
  fs.writeFileSync(path.join(flags.out!, 'bench.json'), JSON.stringify({ rows, extra }, null, 2));
  fs.writeFileSync(path.join(flags.out!, 'bench.md'), table);
  process.stdout.write(`\n${table}\n`);
  if (!flags.data) fs.rmSync(work, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
