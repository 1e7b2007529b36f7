import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { startCountingSink } from './counting-sink';
import type { Knex } from 'knex';
import { startLocalPostgres, startLocalRedis, freePort } from '../../src/platform/dev/local-services';
import { loadEnv } from '../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../src/container';
import { KNEX, REDIS } from '../../src/platform/tokens';
import { migrateAll, forEachBounded } from '../../src/platform/migrations/migrate-all';
import { tenantMigrations } from '../../migrations/tenant';
import { TenantImporter } from '../../src/tenancy/tenants/tenant-importer';
import { hashPassword } from '../../src/platform/auth/password-hasher';
import { BENCH_PASSWORD, largeTenant, smallTenant, swtToken } from './generate-tenants';
import { PeakSampler, commOf, cpuSeconds, descendantsOf, pidsMatching } from './proc-stats';
import { GROUPS, renderTable, type Group, type PerGroup, type Row } from './report';
import { runLoad, type Load } from './load-runner';
import { noisyNeighbour, parseShareCounts } from './noisy-neighbour';
import { runScaleBench } from './scale-bench';
import { runDayBench } from './day-bench';
import { startFlags } from './start-flags';
import { calendarScenarios } from './calendar-bench';
import { importScenarios } from './import-bench';
import { reportScenarios } from './reports-bench';
import { identityScenarios } from './identity-bench';
import { scimScenario } from './scim-bench';

/**
 * npm run bench -- [--tenants 1000] [--duration 10] [--connections 32] [--out DIR (default $TMPDIR/bench-results)]
 * Starts the product as a user would, provisions the tenants, measures its idle cost and every
 * scenario against the ceiling of a bare express app and a hand-written reference
 * (reference-server.ts), and writes JSON + markdown.
 *
 * For profiling one scenario again and again:
 *   --data DIR          keep Postgres and Redis data in DIR; a later run with the same DIR
 *                       skips provisioning (and its rows)
 *   --only REGEX        run only the scenarios whose name matches (the ceiling always runs)
 *   --warmup S          run each timed scenario untimed for S seconds first (steady state)
 *   --top-statements    load pg_stat_statements and print the statements that took most time (planning
 *                       included): those of each API start with its cold run, and those of the rest
 *   --api-node-args=S   extra node flags for the API process, e.g. --api-node-args="--cpu-prof --cpu-prof-dir=prof"
 *                       (after the flags of package.json's start script, which the API always gets, as under npm start)
 *   --yardstick-node-args=S  node flags for the ceiling and the reference (default none: node's defaults), e.g.
 *                       --yardstick-node-args=--max-semi-space-size=64 to measure them with the product's flags
 *   --cold S            length of the cold runs of GET /api/person right after an API start (default 60: the
 *                       issue's "first minute after start")
 *   --cold-leading S    the cold rows also give the p99 of their first S seconds (default 10: the first touch
 *                       of every tenant falls into them)
 *   --api-log-level L   the API's LOG_LEVEL (default warn: no line per request; info measures the request log's cost)
 *   --idle S            length of the idle-cost window, no traffic (default 60; 0 skips it)
 *   --idle-settle S     seconds from the API's first ready answer to the idle window (default 5: the
 *                       workers' start-up sweeps fall into it; 60 or more measures the steady state)
 *   --noisy-rounds N    quiet + flooded pairs of the noisy-neighbour scenario (default 3; medians reported)
 *   --cancel-rounds N   cancels of a 100-participant event in the calendar's end-to-end row (default 5)
 *   --oidc-rounds N     sequential OIDC sign-ins of the identity's round-trip row (default 100)
 *   --scim-users N      users the SCIM provisioning row creates through POST /scim/v2/Users (default 1000; 0 skips it)
 *   --scim-concurrency N  concurrent SCIM creates (default 8)
 *   --scenario day      the day mix instead (issue 42, day-bench.ts): --day-rate N (actions/s of the first-minute and
 *                       steady runs and the search's first step, default 200), --day-first S (default 60),
 *                       --day-persons N (per tenant, default 40), --day-class-seconds S (each class alone, default 5),
 *                       --day-steps N (most steps of each rate search, default 6); --day-parts first,steady,classes,search,off (default all); --duration is each steady run and step
 *   --noisy-others W    whose GET /api/person it measures: all (default), same-group (the tenants that share
 *                       the flooding tenant's connection group) or other-groups
 */
const { values: flags } = parseArgs({
  options: {
    tenants: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    // outside the checkout: the repository's top level holds only the agreed layout
    out: { type: 'string', default: path.join(os.tmpdir(), 'bench-results') },
    data: { type: 'string' },
    only: { type: 'string' },
    'api-node-args': { type: 'string', default: '' },
    'yardstick-node-args': { type: 'string', default: '' },
    'top-statements': { type: 'boolean', default: false },
    warmup: { type: 'string', default: '0' },
    cold: { type: 'string', default: '60' },
    'cold-leading': { type: 'string', default: '10' },
    idle: { type: 'string', default: '60' },
    'idle-settle': { type: 'string', default: '5' },
    'noisy-rounds': { type: 'string', default: '3' },
    'noisy-others': { type: 'string', default: 'all' },
    'scale-base': { type: 'string', default: '1000' },
    'api-log-level': { type: 'string', default: 'warn' },
    'cancel-rounds': { type: 'string', default: '5' },
    'oidc-rounds': { type: 'string', default: '100' },
    'scim-users': { type: 'string', default: '1000' },
    'scim-concurrency': { type: 'string', default: '8' },
    scenario: { type: 'string' },
    'day-rate': { type: 'string', default: '200' },
    'day-first': { type: 'string', default: '60' },
    'day-persons': { type: 'string', default: '40' },
    'day-class-seconds': { type: 'string', default: '5' },
    'day-steps': { type: 'string', default: '6' },
    'day-parts': { type: 'string', default: '' },
  },
});
const T = Number(flags.tenants);
const DURATION = Number(flags.duration);
const CONNECTIONS = Number(flags.connections);
const WARMUP = Number(flags.warmup);
const COLD = Number(flags.cold);
const COLD_LEADING = Number(flags['cold-leading']);
const IDLE = Number(flags.idle);
const IDLE_SETTLE = Number(flags['idle-settle']);
const COMPETENCELEVEL_CALLS = 1;
const say = (m: string) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
const TSX = ['--import', 'tsx'];
const ONLY = flags.only ? new RegExp(flags.only, 'i') : null;
const wanted = (scenario: string) => !ONLY || ONLY.test(scenario);
const PROVISIONED_MARK = 'provisioned.json';
const PLATFORM_TOKEN = 'bench-platform-token-0123456789';
const NOISY = 'noisy neighbour';
if (!['all', 'same-group', 'other-groups'].includes(flags['noisy-others'])) throw new Error('--noisy-others: all, same-group or other-groups');

/** CPU seconds so far of every process in each group, by pid, each with its ended children (closed PostgreSQL backends). */
const cpuOf = <K extends string>(groups: Record<K, () => number[]>) =>
  Object.fromEntries(
    Object.entries<() => number[]>(groups).map(([k, pids]) => [k, new Map(pids().map((p) => [p, cpuSeconds(p, { reaped: true })]))]),
  ) as Record<K, Map<number, number>>;

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

/** "repeats one request" when a run sends one request again and again, "... per tenant" when only the Host or the caller differs (issue 42). */
function repeatsOf(requests: Load['requests']): string | undefined {
  const same = (f: (r: Load['requests'][number]) => string) => new Set(requests.map(f)).size === 1;
  if (!same((r) => `${r.method} ${r.path} ${r.body ?? ''}`)) return undefined;
  return same((r) => JSON.stringify(r.headers ?? {})) ? 'repeats one request' : 'repeats one request per tenant';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SIGTERM, then SIGKILL after 30 s; resolves when the process has exited. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  if ((await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)])) === false) {
    child.kill('SIGKILL');
    await exited;
  }
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** node:http, because fetch() does not let a caller set the Host header. */
function send(url: string, options: { method?: string; headers: Record<string, string>; body?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

async function login(base: string, host: string, userName: string, password: string): Promise<string> {
  const body = JSON.stringify({ user_name: userName, password, login: 1 });
  const r = await send(`${base}/api/login`, {
    method: 'POST',
    headers: { Host: host, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
    body,
  });
  const cookie = r.headers['set-cookie']?.find((c) => c.startsWith('tg-visit='));
  if (r.status !== 200 || !cookie) throw new Error(`login ${userName}@${host} failed: ${r.status} ${r.text}`);
  return cookie.split(';')[0];
}

/**
 * Sanity check of the reference (not a timing assertion): the same requests to the product and
 * to the reference must answer the same person. Returns a one-line verdict.
 */
async function compareWithProduct(base: string, referenceBase: string, sample: { path: string; headers: Record<string, string> }[]): Promise<string> {
  let same = 0;
  const differing = new Set<string>();
  for (const r of sample) {
    const [a, b] = await Promise.all([send(`${base}${r.path}`, r), send(`${referenceBase}${r.path}`, r)]);
    const pa = a.status === 200 ? JSON.parse(a.text).person?.[0] : undefined;
    const pb = b.status === 200 ? JSON.parse(b.text).person?.[0] : undefined;
    if (!pa || !pb || pa.person_id !== pb.person_id || pa.user_name !== pb.user_name) {
      differing.add(`status ${a.status}/${b.status}, person ${pa?.person_id}/${pb?.person_id}`);
      continue;
    }
    same++;
    for (const k of new Set([...Object.keys(pa), ...Object.keys(pb)])) if (JSON.stringify(pa[k]) !== JSON.stringify(pb[k])) differing.add(k);
  }
  return `${same} of ${sample.length} sampled sessions: same person_id and user_name${differing.size ? `; differing: ${[...differing].join(', ')}` : '; every field equal'}`;
}

async function printTopStatements(knex: Knex, when = 'during the scenarios'): Promise<void> {
  const { rows } = await knex.raw(
    `select calls, round(total_exec_time::numeric, 0) as exec_ms, round(total_plan_time::numeric, 0) as plan_ms,
            round((total_exec_time / nullif(calls, 0))::numeric, 3) as mean_ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) as query
       from public.pg_stat_statements order by total_exec_time + total_plan_time desc limit 25`,
  );
  say(`top statements by time ${when} (pg_stat_statements):`);
  console.table(rows);
}

async function main() {
  if (flags.scenario === 'day') {
    await runDayBench({
      tenants: T,
      persons: Number(flags['day-persons']),
      duration: DURATION,
      first: Number(flags['day-first']),
      rate: Number(flags['day-rate']),
      classSeconds: Number(flags['day-class-seconds']),
      steps: Number(flags['day-steps']),
      data: flags.data,
      out: flags.out,
      apiNodeArgs: flags['api-node-args'].split(/\s+/).filter(Boolean),
      parts: flags['day-parts'] ? flags['day-parts'].split(',') : undefined,
      say,
    });
    return;
  }
  if (flags.scenario) throw new Error(`--scenario: only day (the default runs every other scenario)`);
  // above 1,000 tenants: the scale comparison (1,000 vs --tenants) of scale-bench.ts
  const SCALE_BASE = Number(flags['scale-base']);
  if (T > SCALE_BASE) {
    await runScaleBench({
      tenants: T,
      base: SCALE_BASE,
      duration: DURATION,
      warmup: Math.max(WARMUP, 10),
      connections: CONNECTIONS,
      out: flags.out,
      runLoad,
      say,
      idle: IDLE,
      idleSettle: IDLE_SETTLE,
    });
    return;
  }
  const work = flags.data ? path.resolve(flags.data) : fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  fs.mkdirSync(work, { recursive: true });
  fs.chmodSync(work, 0o755);
  const reuse = fs.existsSync(path.join(work, PROVISIONED_MARK));
  if (reuse && JSON.parse(fs.readFileSync(path.join(work, PROVISIONED_MARK), 'utf8')).tenants !== T)
    throw new Error(`${work} was provisioned with another --tenants`);
  const rows: Row[] = [];
  const extra: Record<string, unknown> = { tenants: T, duration: DURATION, connections: CONNECTIONS, cores: os.cpus().length };
  const children: ChildProcess[] = [];
  say(`work dir ${work}; ${T} tenants, ${DURATION}s per scenario, ${CONNECTIONS} connections`);
  const pg = await startLocalPostgres({
    dataDir: path.join(work, 'pg'),
    persistent: Boolean(flags.data),
    fsync: false,
    extraFlags: flags['top-statements'] ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track_planning=on'] : [],
  });
  const redis = await startLocalRedis({ dir: path.join(work, 'redis') });
  const smtp = await startCountingSink();
  const smtpPort = smtp.port;
  const env = loadEnv({ LOG_LEVEL: 'warn' });
  const c = buildContainer(env, { databaseUrl: pg.url, redisUrl: redis.url });
  const knex: Knex = c.resolve(KNEX);
  try {
    if (reuse) {
      say(`reusing the tenants provisioned in ${work}; Redis emptied, as after provisioning`);
      // Queues and job schedulers start afresh, so the first reminder scan falls into the idle window every run.
      await c.resolve(REDIS).flushall();
    } else {
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
      rows.push({
        scenario: `apply one new migration to ${report.tenants.length} tenants`,
        seconds: (Date.now() - t0) / 1000,
        errors: report.tenants.filter((x) => x.error).length,
      });
      fs.writeFileSync(path.join(work, PROVISIONED_MARK), JSON.stringify({ tenants: T }));
    }

    if (flags['top-statements']) await knex.raw('create extension if not exists pg_stat_statements with schema public');
    const statementsSoFar = async (): Promise<number | undefined> =>
      flags['top-statements'] ? Number((await knex.raw('select coalesce(sum(calls), 0) as n from public.pg_stat_statements')).rows[0].n) : undefined;
    // The product, started as a user would; started again before each cold measurement.
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const apiNodeArgs = flags['api-node-args'].split(/\s+/).filter(Boolean);
    let api!: ChildProcess;
    const startApi = async () => {
      api = spawn(process.execPath, [...startFlags(path.resolve(__dirname, '../..')), ...apiNodeArgs, ...TSX, path.resolve(__dirname, '../../src/main.ts')], {
        env: {
          ...process.env,
          PORT: String(port),
          DATABASE_URL: pg.url,
          REDIS_URL: redis.url,
          SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
          LOG_LEVEL: flags['api-log-level'],
          HOST: '127.0.0.1',
          PLATFORM_ADMIN_TOKEN: PLATFORM_TOKEN,
          IDENTITY_PROVIDERS_ALLOW_HTTP: '1',
          API_RATE_LIMIT_CEILING_PER_MINUTE: '0',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.push(api);
      await waitFor(`${base}/readyz`);
    };
    const restartApi = async () => {
      await stopChild(api);
      await startApi();
    };
    await startApi();
    const apiPid = () => api.pid!;
    const postgresPids = () => pidsMatching(path.join(work, 'pg'));
    // redis-server rewrites its command line: find it among our children by name
    const redisPids = () => descendantsOf(process.pid).filter((p) => commOf(p) === 'redis-server');
    const groupsOf = (server: () => number): Record<Group, () => number[]> => ({
      api: () => [server()],
      postgres: postgresPids,
      redis: redisPids,
      workers: () => descendantsOf(api.pid!).filter((p) => p !== api.pid),
    });
    const sampler = new PeakSampler({ api: () => [api.pid!], postgres: postgresPids });
    sampler.start();

    /**
     * CPU seconds used by each group between two cpuOf() snapshots: the group's total then minus its
     * total before. A process started in between counts from zero; one that ended in between counts
     * in its parent's figure (a closed PostgreSQL backend in the postmaster's), so pool connections
     * closed during a measurement are not lost.
     */
    const groupTotal = (c: Map<number, number>) => [...c.values()].reduce((s, t) => s + t, 0);
    const cpuUsed = (c0: Record<Group, Map<number, number>>, c1: Record<Group, Map<number, number>>) =>
      Object.fromEntries(GROUPS.map((k) => [k, groupTotal(c1[k]) - groupTotal(c0[k])])) as PerGroup;
    const scale = (v: PerGroup, by: number) => Object.fromEntries(GROUPS.map((k) => [k, v[k] * by])) as PerGroup;

    // Idle cost: the provisioned tenants, the API and its workers up, no traffic.
    if (IDLE > 0) {
      await sleep(IDLE_SETTLE * 1000); // start-up work settles
      if (flags['top-statements']) await knex.raw('select public.pg_stat_statements_reset()');
      const groups = groupsOf(apiPid);
      const c0 = cpuOf(groups);
      const t0 = Date.now();
      const s0 = await statementsSoFar();
      await sleep(IDLE * 1000);
      const c1 = cpuOf(groups);
      const s1 = await statementsSoFar();
      const seconds = (Date.now() - t0) / 1000;
      const cpu = scale(cpuUsed(c0, c1), 1 / seconds);
      const total = GROUPS.reduce((s, k) => s + cpu[k], 0);
      const sql = s0 === undefined ? '' : `, ${((s1! - s0) / seconds).toFixed(1)} SQL statements/s`;
      rows.push({
        scenario: `idle: ${T} tenants, no traffic`,
        cpu,
        seconds,
        note: `${total.toFixed(3)} cores together (target < 0.02), from ${IDLE_SETTLE} s after start${sql}`,
      });
      say(
        `idle ${seconds.toFixed(0)} s from ${IDLE_SETTLE} s after start: ${total.toFixed(3)} cores (${GROUPS.map((k) => `${k} ${cpu[k].toFixed(3)}`).join(', ')})${sql}`,
      );
      if (flags['top-statements']) await printTopStatements(knex, 'while idle');
    }
    if (flags['top-statements']) await knex.raw('select public.pg_stat_statements_reset()');

    /**
     * One timed autocannon run. `server`: the process whose CPU is the "api" column (the API,
     * or the ceiling / reference server). `warmup`: untimed seconds first (default --warmup).
     */
    const measure = async (scenario: string, config: Load, opts: { server?: () => number; warmup?: number; always?: boolean } = {}): Promise<Row | null> => {
      if (!opts.always && !wanted(scenario)) return null;
      const groups = groupsOf(opts.server ?? apiPid);
      const warmup = opts.warmup ?? WARMUP;
      if (warmup > 0 && !config.amount) await runLoad({ connections: CONNECTIONS, ...config, duration: warmup });
      const s0 = await statementsSoFar();
      const cpu0 = cpuOf(groups);
      const r = await runLoad({ connections: CONNECTIONS, duration: DURATION, ...config });
      const used = cpuUsed(cpu0, cpuOf(groups));
      const s1 = await statementsSoFar();
      const cpu = scale(used, 1 / r.durationSeconds);
      const row: Row = {
        scenario,
        repeats: repeatsOf(config.requests),
        rps: r.requestsPerSecond,
        p50: r.p50,
        p99: r.p99,
        errors: r.errors + r.non2xx,
        cpu,
        cpuMs: scale(used, 1000 / Math.max(1, r.total)),
        statements: s0 === undefined ? undefined : (s1! - s0) / Math.max(1, r.total),
        startedAtMs: r.startedAtMs,
        ...(r.leading ? { note: `first ${r.leading.seconds} s: p99 ${Math.round(r.leading.p99)} ms over ${r.leading.total} requests` } : {}),
      };
      rows.push(row);
      say(
        `${scenario}: ${r.requestsPerSecond.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${row.errors}, CPU ms/request ${GROUPS.map((k) => `${k} ${row.cpuMs![k].toFixed(2)}`).join(', ')}`,
      );
      return row;
    };

    const ceilingPort = await freePort();
    const yardstickArgs = flags['yardstick-node-args'].split(/\s+/).filter(Boolean);
    const ceiling = spawn(process.execPath, [...yardstickArgs, ...TSX, path.join(__dirname, 'ceiling-server.ts'), String(ceilingPort)], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(ceiling);
    await waitFor(`http://127.0.0.1:${ceilingPort}/`);
    const measureCeiling = (name: string) =>
      measure(name, { url: `http://127.0.0.1:${ceilingPort}`, requests: [{ method: 'GET', path: '/' }] }, { server: () => ceiling.pid!, always: true });
    const ceilingRow = await measureCeiling('ceiling: bare express, fixed envelope');

    const hosts = Array.from({ length: T - 1 }, (_, i) => smallTenant(i + 1, '').tenant.hosts[0]);
    const SESSION = 'GET /api/person, session, all tenants';
    const SWT = 'GET /api/person, SWT, all tenants';
    const cookies: { host: string; cookie: string }[] = [];
    say('logging in on every small tenant');
    await forEachBounded(hosts, 8, async (host) => {
      cookies.push({ host, cookie: await login(base, host, 'user', BENCH_PASSWORD) });
    });
    const sessionRequests = cookies.map(({ host, cookie }) => ({ method: 'GET', path: '/api/person', headers: { Host: host, Cookie: cookie } }));
    const swtRequests = hosts.map((h) => ({ method: 'GET', path: '/api/person', headers: { Host: h, Authorization: `SWT ${swtToken('user')}` } }));

    // The reference: the same essential work as the session scenario, hand-written.
    const referencePort = await freePort();
    const referenceBase = `http://127.0.0.1:${referencePort}`;
    const reference = spawn(
      process.execPath,
      [...yardstickArgs, ...TSX, path.join(__dirname, 'reference-server.ts'), String(referencePort), pg.url, redis.url],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    children.push(reference);
    await waitFor(`${referenceBase}/readyz`);
    const referenceCheck = await compareWithProduct(
      base,
      referenceBase,
      sessionRequests.filter((_, i) => i % Math.max(1, Math.floor(sessionRequests.length / 20)) === 0),
    );
    extra.referenceCheck = referenceCheck;
    say(`sanity check, reference vs product: ${referenceCheck}`);
    // warmed as long as the product's steady runs are (they follow a cold run)
    const referenceRow = await measure(
      'reference: hand-written express + Redis + pg, GET /api/person, session',
      { url: referenceBase, requests: sessionRequests },
      { server: () => reference.pid!, warmup: COLD + WARMUP, always: true },
    );
    await stopChild(reference);

    // Cold: the first --cold seconds after the API starts; steady: after every tenant was asked once more, with --warmup more.
    for (const [name, requests] of [
      [SESSION, sessionRequests],
      [SWT, swtRequests],
    ] as const) {
      if (!wanted(name)) continue;
      say(`starting the API again for a cold ${name}`);
      if (flags['top-statements']) await knex.raw('select public.pg_stat_statements_reset()');
      await restartApi();
      await measure(
        `${name}, cold (first ${COLD} s after start)`,
        { url: base, requests, duration: COLD, ...(COLD_LEADING < COLD ? { leadingSeconds: COLD_LEADING } : {}) },
        { warmup: 0, always: true },
      );
      if (flags['top-statements']) {
        await printTopStatements(knex, `in the API's start and ${name}, cold`);
        await knex.raw('select public.pg_stat_statements_reset()');
      }
      // steady: every tenant's session asked once more (untimed), so each has met this API process, then --warmup s
      await runLoad({ connections: Math.min(CONNECTIONS, requests.length), url: base, requests, amount: requests.length });
      await measure(`${name}, steady`, { url: base, requests }, { always: true });
    }

    // the identity (issue 37): the token endpoint and GET /api/person with a Bearer token beside the
    // session and SWT rows, and the OIDC sign-in round trip against oidc-provider on loopback (identity-bench.ts)
    await identityScenarios({
      base,
      sessions: cookies,
      connections: CONNECTIONS,
      rounds: Number(flags['oidc-rounds']),
      rows,
      say,
      wanted,
      signInEmail: (host) => `user@${host.split('.')[0]}.example`,
      measure: (scenario, load) => measure(scenario, load),
      cpuWindow: () => {
        const groups = groupsOf(apiPid);
        const c0 = cpuOf(groups);
        return () => cpuUsed(c0, cpuOf(groups));
      },
    });
    // SCIM provisioning (issue 37): users created per second through POST /scim/v2/Users (scim-bench.ts)
    await scimScenario({
      base,
      session: cookies[0],
      users: Number(flags['scim-users']),
      concurrency: Number(flags['scim-concurrency']),
      rows,
      say,
      wanted,
      cpuWindow: () => {
        const groups = groupsOf(apiPid);
        const c0 = cpuOf(groups);
        return () => cpuUsed(c0, cpuOf(groups));
      },
    });

    /**
     * The ceiling again after the GET /api/person runs, on the same (idle since) server: the shared
     * host's load drifts over minutes, so the ratios divide by the mean of the two measurements that
     * bracket the read scenarios, and the report shows both.
     */
    const ceilingAgain = await measureCeiling('ceiling again, after GET /api/person');
    await stopChild(ceiling);
    const ceilingRps = (ceilingRow!.rps! + ceilingAgain!.rps!) / 2;
    ceilingRow!.note = `ratios divide by the mean of this and the second measurement: ${ceilingRps.toFixed(0)} req/s`;

    const large = 'large.bench.localhost';
    const largeCookie = await login(base, large, 'p0', BENCH_PASSWORD);
    const rootOrg = (await knex.withSchema('tenant_large').table('organisations').whereNull('parent_id').first('id')).id;
    const H = { Host: large, Cookie: largeCookie };
    await measure('GET /api/persons?organisation_id&recursive (large)', {
      url: base,
      requests: [{ method: 'GET', path: `/api/persons?organisation_id=${rootOrg}&recursive=1&limit=100`, headers: H }],
    });
    await measure('GET /api/personcompetences?state=missing (5 roles)', {
      url: base,
      requests: [{ method: 'GET', path: '/api/personcompetences?state=missing&user_name=p0', headers: H }],
    });
    await measure('GET /api/events?mode=future&view=full (large)', {
      url: base,
      requests: [{ method: 'GET', path: '/api/events?mode=future&view=full', headers: H }],
    });
    if (wanted(NOISY)) {
      // The large tenant's dearest list (most PostgreSQL time per call) against everyone else's GET /api/person.
      const largeId: number = (await knex.withSchema('platform').table('tenants').where('slug', 'large').first('id')).id;
      const idOf = new Map<string, number>(
        (await knex.withSchema('platform').table('tenants').select('slug', 'id')).map((r: { slug: string; id: number }) => [r.slug, r.id]),
      );
      const smallIds = [...idOf].filter(([slug]) => slug !== 'large').map(([, id]) => id);
      const groups = env.DATABASE_POOL_GROUPS;
      rows.push(
        ...(await noisyNeighbour({
          url: base,
          others: sessionRequests.filter((r) => {
            const which = flags['noisy-others'];
            const sameGroup = idOf.get(r.headers.Host.split('.')[0])! % groups === largeId % groups;
            return which === 'all' || (which === 'same-group') === sameGroup;
          }),
          othersConnections: CONNECTIONS,
          flood: { method: 'GET', path: '/api/events?mode=future&view=full', headers: H },
          floodName: 'GET /api/events?mode=future&view=full',
          floodConnections: 32,
          duration: DURATION,
          warmup: Math.max(WARMUP, DURATION),
          rounds: Number(flags['noisy-rounds']),
          othersInItsGroup: smallIds.filter((id) => id % groups === largeId % groups).length,
          cpuDuring: async (run) => {
            const groups = groupsOf(apiPid);
            const c0 = cpuOf(groups);
            const t0 = Date.now();
            const value = await run();
            return { value, cpu: scale(cpuUsed(c0, cpuOf(groups)), 1000 / (Date.now() - t0)) };
          },
          shareCounts: async () => parseShareCounts((await send(`${base}/metrics`, { headers: { Authorization: `Bearer ${PLATFORM_TOKEN}` } })).text),
          say,
        })),
      );
    }
    // One request at a time, a few of them: this call walks the whole organisation (10,000 persons).
    await measure('GET /api/competencelevel?organisation_id (large root, 10,000 persons)', {
      url: base,
      requests: [{ method: 'GET', path: `/api/competencelevel?organisation_id=${rootOrg}`, headers: H }],
      amount: COMPETENCELEVEL_CALLS,
      connections: 1,
      timeout: 600,
    });
    const smallEvents: number[] = await knex
      .withSchema('tenant_large')
      .table('events')
      .where('max_participants', 2)
      .where('starts_at', '>', new Date())
      .orderBy('id')
      .limit(50)
      .pluck('id');
    // a run on kept data (--data) meets the sign-ons of the last one: start each burst from empty events
    if (wanted('POST /api/personevents bursts (2 seats each)'))
      await knex.withSchema('tenant_large').table('person_events').whereIn('event_id', smallEvents).delete();
    const signons = smallEvents.flatMap((e, i) =>
      Array.from({ length: 20 }, (_, k) => ({
        method: 'POST',
        path: `/api/personevents/${e}`,
        headers: { ...H, 'Content-Type': 'application/json' },
        body: JSON.stringify({ user_name: `p${1 + ((i * 20 + k) % 9999)}` }),
      })),
    );
    await measure('POST /api/personevents bursts (2 seats each)', { url: base, requests: signons, amount: signons.length });
    const overbooked: unknown[] = await knex
      .withSchema('tenant_large')
      .table('person_events')
      .whereIn('event_id', smallEvents)
      .where('status', 'signed_on')
      .groupBy('event_id')
      .havingRaw('count(*) > 2')
      .select('event_id');
    extra.oversoldEvents = overbooked.length;

    /**
     * 5,000 messages from one tenant, timed from the first POST until the sink has the last mail.
     * Cold: the first MESSAGES_COLD of the process (the message path, nodemailer's and the batch
     * statements not compiled yet, the SMTP pool not open); then steady: 5,000 more. Both reported.
     */
    const MESSAGES_COLD = 1000;
    const N = 5000;
    const sendMessages = async (name: string, count: number, tag: string, endToEnd: string) => {
      const before = smtp.count;
      const msgs = Array.from({ length: count }, (_, i) => ({
        method: 'POST',
        path: '/api/messages',
        headers: { ...H, 'Content-Type': 'application/json' },
        body: JSON.stringify({ user_name: `p${1 + (i % 9999)}`, title: `Bench ${tag} ${i}`, text: 'Benchmark message', send_medium: 'email' }),
      }));
      const m0 = Date.now();
      const e2eGroups = groupsOf(apiPid);
      const e2eCpu0 = cpuOf(e2eGroups);
      const sink0 = process.cpuUsage();
      const posted = await measure(name, { url: base, requests: msgs, amount: count }, { always: true });
      const accepted = count - (posted!.errors ?? 0);
      const until = Date.now() + 300_000;
      while (smtp.count - before < accepted && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      // from the first POST (after the load generator's start-up) until the sink had the last mail
      const mailSeconds = (smtp.lastMailAt - (posted!.startedAtMs ?? m0)) / 1000;
      // the whole pipeline's CPU from the first POST until the sink has every mail (the bench process: SMTP sink and bookkeeping)
      const e2eUsed = cpuUsed(e2eCpu0, cpuOf(e2eGroups));
      const sink = process.cpuUsage(sink0);
      const delivered = smtp.count - before;
      const e2eMs = scale(e2eUsed, 1000 / Math.max(1, delivered));
      const totalMs = GROUPS.reduce((sum, k) => sum + e2eMs[k], 0);
      rows.push({
        scenario: endToEnd,
        seconds: mailSeconds,
        rps: delivered / mailSeconds,
        errors: accepted - delivered,
        cpu: scale(e2eUsed, 1 / mailSeconds),
        cpuMs: e2eMs,
        note: `${delivered} of ${accepted} accepted delivered; CPU ms per message ${totalMs.toFixed(2)} over the four groups, bench process (SMTP sink) ${((sink.user + sink.system) / 1000 / Math.max(1, delivered)).toFixed(2)}`,
      });
    };
    if (wanted('POST /api/messages (5,000, e-mail)')) {
      await sendMessages(
        `POST /api/messages, cold (first ${MESSAGES_COLD.toLocaleString('en')} of the process)`,
        MESSAGES_COLD,
        'cold',
        `messages end to end to the SMTP sink, cold (first ${MESSAGES_COLD.toLocaleString('en')})`,
      );
      await sendMessages('POST /api/messages (5,000, e-mail)', N, 'steady', 'messages end to end to the SMTP sink');
    }
    // the reports (issue 38): the competence matrix (JSON, XLSX, CSV) and the compliance summary of the large root (reports-bench.ts)
    await reportScenarios({
      base,
      headers: H,
      rootOrg,
      rows,
      say,
      wanted,
      apiPid,
      cpuWindow: () => {
        const groups = groupsOf(apiPid);
        const c0 = cpuOf(groups);
        return () => cpuUsed(c0, cpuOf(groups));
      },
    });
    // the calendar (issue 35): event creation, and a cancel's notices end to end (calendar-bench.ts)
    await calendarScenarios({
      base,
      headers: H,
      knex,
      smtp,
      rows,
      say,
      wanted,
      rounds: Number(flags['cancel-rounds']),
      measure: (scenario, load) => measure(scenario, load),
      cpuWindow: () => {
        const groups = groupsOf(apiPid);
        const c0 = cpuOf(groups);
        return () => cpuUsed(c0, cpuOf(groups));
      },
    });
    // the bulk import (issue 36): 10,000 persons and 50,000 registrations from CSV (import-bench.ts)
    await importScenarios({
      base,
      headers: H,
      knex,
      rows,
      say,
      wanted,
      apiPid,
      workerPids: () => descendantsOf(api.pid!).filter((p) => p !== api.pid),
      cpuWindow: () => {
        const groups = groupsOf(apiPid);
        const c0 = cpuOf(groups);
        return () => cpuUsed(c0, cpuOf(groups));
      },
    });
    sampler.stop();
    // every row with a rate, the noisy neighbour's and the messages end to end (messages/s) included
    for (const r of rows) {
      if (r.rps === undefined) continue;
      r.ratio = r.rps / ceilingRps;
      r.refRatio = r.rps / referenceRow!.rps!;
    }
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
  fs.mkdirSync(flags.out, { recursive: true });
  fs.writeFileSync(path.join(flags.out, 'bench.json'), JSON.stringify({ rows, extra }, null, 2));
  fs.writeFileSync(path.join(flags.out, 'bench.md'), table);
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
