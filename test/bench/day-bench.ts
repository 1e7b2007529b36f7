import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Knex } from 'knex';
import { startLocalPostgres, startLocalRedis, freePort } from '../../src/platform/dev/local-services';
import { loadEnv } from '../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../src/container';
import { KNEX } from '../../src/platform/tokens';
import { migrateAll, forEachBounded } from '../../src/platform/migrations/migrate-all';
import { TenantImporter } from '../../src/tenancy/tenants/tenant-importer';
import { hashPassword } from '../../src/platform/auth/password-hasher';
import { BENCH_CONFIG, BENCH_PASSWORD } from './generate-tenants';
import { dayTenant, loadDayTenant } from './day-tenants';
import { MIX, type DayTenantLogins } from './day-actions';
import { sendOn, type DayMixConfig, type DayMixResult } from './day-mix';
import { startCountingSink } from './counting-sink';
import { commOf, cpuSeconds, descendantsOf, pidsMatching } from './proc-stats';
import { GROUPS, renderTable, type PerGroup, type Row } from './report';
import { startFlags } from './start-flags';

/**
 * `npm run bench -- --scenario day` (issue 42): a training platform's working day against two API
 * processes. Provisions `tenants` day tenants (day-tenants.ts: `persons` persons each), runs
 * `npm run workers` and two `npm run api` processes on ports of their own (the two processes of
 * WEB_CONCURRENCY=2, addressable one by one so that the stale checker reads every write back from
 * the other one), logs the back office and u1 of every tenant in (sessions; the others use SWT),
 * then: the mix's first `first` seconds after a start, the steady mix, each class alone (CPU per
 * request per component, SQL statements per request, cache hit ratio), a step search over the
 * offered rate, and the same with the product's caches off (PRINCIPAL_CACHE_SECONDS=0).
 */
export interface DayBenchOptions {
  tenants: number;
  persons: number;
  /** seconds per steady run and per step of the search */
  duration: number;
  /** seconds of the run right after the start */
  first: number;
  /** offered rate (actions/s) of the first-minute and steady runs, and the search's first step */
  rate: number;
  /** seconds of each class alone */
  classSeconds: number;
  steps: number;
  data?: string;
  out: string;
  /** extra node flags for the two API processes (e.g. --cpu-prof --cpu-prof-dir=DIR) */
  apiNodeArgs?: string[];
  /** the parts to run (default all): first, steady, classes, search, off */
  parts?: string[];
  say: (m: string) => void;
}

const TSX = ['--import', 'tsx'];
const PLATFORM_TOKEN = 'bench-platform-token-0123456789';
const READ_P99 = 50;
const WRITE_P99 = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function runDriver(config: DayMixConfig): Promise<DayMixResult> {
  const file = path.join(os.tmpdir(), `bench-day-${process.pid}-${Date.now()}.json`);
  fs.writeFileSync(file, JSON.stringify(config));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TSX, path.join(__dirname, 'day-worker.ts'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      fs.rmSync(file, { force: true });
      try {
        if (code === 0) resolve(JSON.parse(out));
        else reject(new Error(`day driver exited ${code}`));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

async function waitReady(base: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return;
    } catch {
      /* not yet */
    }
    await sleep(250);
  }
  throw new Error(`${base} never became ready`);
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  if ((await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)])) === false) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** The cache lookups of one API process so far (tenant_data_cache_lookups_total). */
async function lookups(base: string): Promise<Record<string, number>> {
  const r = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${PLATFORM_TOKEN}` } });
  const out: Record<string, number> = { hit: 0, shared: 0, miss: 0, bypass: 0 };
  for (const m of (await r.text()).matchAll(/^tenant_data_cache_lookups_total\{result="(\w+)"\} (\d+)/gm)) out[m[1]] = Number(m[2]);
  return out;
}

export async function runDayBench(o: DayBenchOptions): Promise<void> {
  const { say } = o;
  const work = o.data ? path.resolve(o.data) : fs.mkdtempSync(path.join(os.tmpdir(), 'bench-day-'));
  fs.mkdirSync(work, { recursive: true });
  fs.chmodSync(work, 0o755);
  const mark = path.join(work, 'day-provisioned.json');
  const reuse = fs.existsSync(mark);
  if (reuse && JSON.stringify(JSON.parse(fs.readFileSync(mark, 'utf8'))) !== JSON.stringify({ tenants: o.tenants, persons: o.persons }))
    throw new Error(`${work} was provisioned with other --tenants / --day-persons`);
  const rows: Row[] = [];
  const extra: Record<string, unknown> = {
    scenario: 'day',
    tenants: o.tenants,
    personsPerTenant: o.persons,
    cores: os.cpus().length,
    loadavgAtStart: os.loadavg()[0].toFixed(2),
  };
  const pg = await startLocalPostgres({
    dataDir: path.join(work, 'pg'),
    persistent: Boolean(o.data),
    fsync: false,
    extraFlags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track_planning=on', '-c', 'max_connections=300'],
  });
  const redis = await startLocalRedis({ dir: path.join(work, 'redis') });
  const smtp = await startCountingSink();
  const c = buildContainer(loadEnv({ LOG_LEVEL: 'warn' }), { databaseUrl: pg.url, redisUrl: redis.url });
  const knex: Knex = c.resolve(KNEX);
  const children: ChildProcess[] = [];
  try {
    // reused data may predate the newest tenant migrations: bring every schema up to date first, as a deploy does
    await migrateAll(knex, { concurrency: 4 });
    if (!reuse) {
      const hash = await hashPassword(BENCH_PASSWORD);
      const importer = c.resolve(TenantImporter);
      const t0 = Date.now();
      let done = 0;
      await forEachBounded(
        Array.from({ length: o.tenants }, (_, i) => i + 1),
        4,
        async (i) => {
          await importer.import(dayTenant(i, hash, o.persons, BENCH_CONFIG), { onProgress: () => {} });
          if (++done % 100 === 0) say(`provisioned ${done}/${o.tenants} day tenants`);
        },
      );
      const seconds = (Date.now() - t0) / 1000;
      rows.push({
        scenario: `day: create + migrate + import ${o.tenants} tenants (${o.persons} persons each)`,
        seconds,
        note: `${(o.tenants / seconds).toFixed(1)} tenants/s`,
      });
      fs.writeFileSync(mark, JSON.stringify({ tenants: o.tenants, persons: o.persons }));
    }
    await knex.raw('create extension if not exists pg_stat_statements with schema public');
    const statements = async () => Number((await knex.raw('select coalesce(sum(calls), 0) as n from public.pg_stat_statements')).rows[0].n);

    const env = {
      ...process.env,
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PLATFORM_ADMIN_TOKEN: PLATFORM_TOKEN,
      API_RATE_LIMIT_CEILING_PER_MINUTE: '0',
      WEB_CONCURRENCY: '1',
    };
    const flags = startFlags(path.resolve(__dirname, '../..'));
    const workers = spawn(process.execPath, [...flags, ...TSX, path.resolve(__dirname, '../../workers/main.ts')], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(workers);
    const ports = [await freePort(), await freePort()];
    const bases = ports.map((p) => `http://127.0.0.1:${p}`);
    let apis: ChildProcess[] = [];
    const startApis = async (extraEnv: Record<string, string> = {}) => {
      await Promise.all(apis.map(stopChild));
      apis = ports.map((p) =>
        spawn(process.execPath, [...flags, ...(o.apiNodeArgs ?? []), ...TSX, path.resolve(__dirname, '../../src/api.ts')], {
          env: { ...env, ...extraEnv, PORT: String(p) },
          stdio: ['ignore', 'inherit', 'inherit'],
        }),
      );
      children.push(...apis);
      await Promise.all(bases.map(waitReady));
    };
    await startApis();

    const postgresPids = () => pidsMatching(path.join(work, 'pg'));
    const redisPids = () => descendantsOf(process.pid).filter((p) => commOf(p) === 'redis-server');
    const groups: Record<(typeof GROUPS)[number], () => number[]> = {
      api: () => apis.map((a) => a.pid!),
      postgres: postgresPids,
      redis: redisPids,
      workers: () => descendantsOf(workers.pid!),
    };
    const cpuNow = () => Object.fromEntries(GROUPS.map((g) => [g, groups[g]().reduce((s, p) => s + cpuSeconds(p, { reaped: true }), 0)])) as PerGroup;

    // logins: the back office and u1 of every tenant, on the two processes in turn (sessions live in Redis)
    say(`logging in the back office and u1 of ${o.tenants} tenants`);
    const schemas: { slug: string; schema: string }[] = await knex
      .withSchema('platform')
      .table('tenants')
      .select('slug', 'schema_name as schema')
      .where('slug', 'like', 'day%')
      .orderBy('slug');
    const agent = new http.Agent({ keepAlive: true });
    const tenants: DayTenantLogins[] = [];
    let k = 0;
    // with --data, the sessions of the last run (Redis keeps them, append-only) when they still answer
    const loginsFile = path.join(work, 'day-logins.json');
    const kept: Record<string, { superCookie: string; sessions: Record<string, string> }> = fs.existsSync(loginsFile)
      ? JSON.parse(fs.readFileSync(loginsFile, 'utf8'))
      : {};
    const stillValid = async (host: string) => {
      const s = kept[host];
      if (!s) return false;
      const [a, b] = await Promise.all(
        [s.superCookie, s.sessions.u1].map((cookie) =>
          sendOn(agent, bases[0], { method: 'GET', path: '/api/person', headers: { Host: host, Cookie: cookie } }),
        ),
      );
      return a.status === 200 && b.status === 200;
    };
    await forEachBounded(schemas, 8, async ({ slug, schema }) => {
      const host = `${slug}.bench.localhost`;
      const login = async (user: string) => {
        const r = await sendOn(agent, bases[k++ % 2], {
          method: 'POST',
          path: '/api/login',
          headers: { Host: host },
          body: { user_name: user, password: BENCH_PASSWORD, login: 1 },
        });
        if (r.status !== 200) throw new Error(`login ${user}@${host}: ${r.status} ${JSON.stringify(r.body)}`);
        return `tg-visit=${r.body.login?.[0]?.session_id ?? r.body.session_id}`;
      };
      const logins = (await stillValid(host)) ? kept[host] : { superCookie: await login('user'), sessions: { u1: await login('u1') } };
      kept[host] = logins;
      tenants.push({ ...(await loadDayTenant(knex, schema, host)), ...logins });
    });
    agent.destroy();
    const schemaOf = new Map(schemas.map(({ slug, schema }) => [`${slug}.bench.localhost`, schema]));
    fs.writeFileSync(loginsFile, JSON.stringify(kept));

    let staleTotal = 0;
    let checksTotal = 0;
    const run = async (name: string, config: Partial<DayMixConfig> & { rate: number; seconds: number }, opts: { perClass?: boolean; group?: string } = {}) => {
      const s0 = await statements();
      const c0 = cpuNow();
      const l0 = await Promise.all(bases.map(lookups));
      const r = await runDriver({ bases, tenants, seed: Date.now() % 100_000, ...config });
      // the next run starts from the state this one left; a tenant with a failed write is read again
      for (const t of tenants) Object.assign(t, r.state[t.host]);
      for (const host of r.unknownHosts) {
        const t = tenants.find((x) => x.host === host)!;
        Object.assign(t, await loadDayTenant(knex, schemaOf.get(host)!, host));
      }
      const c1 = cpuNow();
      const s1 = await statements();
      const l1 = await Promise.all(bases.map(lookups));
      const served = r.classes.reduce((s, x) => s + x.count, 0) + r.checks.count;
      const cpuMs = Object.fromEntries(GROUPS.map((g) => [g, ((c1[g] - c0[g]) * 1000) / Math.max(1, served)])) as PerGroup;
      const cpu = Object.fromEntries(GROUPS.map((g) => [g, (c1[g] - c0[g]) / r.seconds])) as PerGroup;
      const d = (key: string) => l1.reduce((s, l, i) => s + l[key] - l0[i][key], 0);
      const asked = d('hit') + d('shared') + d('miss') + d('bypass');
      const hitRatio = asked ? (d('hit') + d('shared')) / asked : undefined;
      staleTotal += r.checks.stale;
      checksTotal += r.checks.count;
      const errors = r.classes.reduce((s, x) => s + x.errors, 0);
      const note = [
        `offered ${r.offered}/s, ${r.skipped} skipped`,
        r.checks.count ? `${r.checks.count} read-backs from the other process, ${r.checks.stale} stale, ${r.checks.errors} failed` : '',
        hitRatio === undefined ? '' : `cache hit ratio ${(hitRatio * 100).toFixed(1)} % of ${asked} lookups`,
        r.leading ? `p99 first ${r.leading.seconds} s ${r.leading.p99.toFixed(0)} ms, after ${r.leading.restP99.toFixed(0)} ms` : '',
      ]
        .filter(Boolean)
        .join('; ');
      const worst = (kinds: string[]) => {
        const x = r.classes.filter((c) => kinds.includes(c.kind)).sort((a, b) => b.p99 - a.p99)[0];
        return x ? `${x.p99.toFixed(0)} (${x.cls})` : '0';
      };
      say(
        `${name}: ${served} requests in ${r.seconds.toFixed(1)} s, errors ${errors}, worst p99 read ${worst(['read'])} write ${worst(['write', 'message'])} ms; ${note}`,
      );
      // every stale answer is printed (there should be none), a few of the failures
      for (const e of [
        ...r.errorExamples.slice(0, 3),
        ...r.checks.examples.filter((x) => x.startsWith('stale')),
        ...r.checks.examples.filter((x) => !x.startsWith('stale')).slice(0, 3),
      ])
        say(`  ${e}`);
      const sorted = r.classes.map((x) => x.p99);
      rows.push({
        scenario: name,
        rps: (served - r.checks.count) / r.seconds,
        p50: Math.min(...r.classes.map((x) => x.p50)),
        p99: Math.max(...sorted),
        errors,
        cpu,
        cpuMs,
        statements: (s1 - s0) / Math.max(1, served),
        seconds: r.seconds,
        note: `${note}; p50/p99: the lowest class p50 and the highest class p99`,
      });
      if (opts.perClass) for (const x of r.classes) rows.push({ scenario: `  ${x.cls} (${x.kind})`, rps: x.rps, p50: x.p50, p99: x.p99, errors: x.errors });
      return { r, cpuMs, statements: (s1 - s0) / Math.max(1, served), hitRatio };
    };
    /** Every read class p99 ≤ 50 ms, every write and message class ≤ 100 ms, no error, nothing skipped (reports are not held to it). */
    const meets = (r: DayMixResult) =>
      r.skipped === 0 && r.classes.every((x) => x.errors === 0 && (x.kind === 'report' || x.p99 <= (x.kind === 'read' ? READ_P99 : WRITE_P99)));
    /**
     * The sustained rate: from `--day-rate`, doubled while a step meets the targets, halved while the first steps
     * fail; once one rate passed and a higher one failed, bisected between them until they are within 10 %. A step
     * that fails is run once more and fails only if that one fails too: a class's p99 over one step rests on a
     * few dozen answers (the rarest classes, 2 % of the mix, have fewer than ten at 20/s over 20 s), so one
     * answer held up by the machine (a neighbour's burst, a collection) would otherwise decide the search.
     */
    const search = async (label: string) => {
      let rate = o.rate;
      let best = 0;
      let failedAt = 0;
      for (let i = 0; i < o.steps; i++) {
        let { r } = await run(`${label}, step at ${rate}/s`, { rate, seconds: o.duration });
        if (!meets(r)) r = (await run(`${label}, step at ${rate}/s again`, { rate, seconds: o.duration })).r;
        if (meets(r)) best = Math.max(best, rate);
        else failedAt = failedAt ? Math.min(failedAt, rate) : rate;
        const next = !failedAt ? rate * 2 : !best ? Math.floor(rate / 2) : Math.round((best + failedAt) / 2);
        if (next < 1 || next === best || next === failedAt || (best && failedAt && failedAt - best <= Math.max(1, best * 0.1))) break;
        rate = next;
      }
      return { best, failedAt };
    };

    const part = (name: string) => !o.parts?.length || o.parts.includes(name);
    // 1. the first minute after a start, then steady: the API processes started again (sessions stay in Redis)
    if (part('first')) {
      say('starting both API processes again for the first minute');
      await knex.raw('select public.pg_stat_statements_reset()');
      await startApis();
      const firstRun = await run(
        `day mix, first ${o.first} s after start`,
        { rate: o.rate, seconds: o.first + o.duration, leadingSeconds: o.first },
        { perClass: false },
      );
      extra.firstMinuteP99 = firstRun.r.leading?.p99;
    }
    if (part('steady')) {
      const steady = await run(`day mix, steady at ${o.rate}/s (caches on)`, { rate: o.rate, seconds: o.duration }, { perClass: true });
      extra.steadyP99 = Math.max(...steady.r.classes.filter((x) => x.kind !== 'report').map((x) => x.p99));
    }

    // 2. each class alone: CPU ms per request per component, SQL statements per request, cache hit ratio
    const perClassRate = Math.max(10, Math.round(o.rate / 4));
    const top: string[] = [];
    for (const [cls] of part('classes') ? MIX : []) {
      await knex.raw('select public.pg_stat_statements_reset()');
      const { r, cpuMs, statements: sql, hitRatio } = await run(`  alone: ${cls}`, { rate: perClassRate, seconds: o.classSeconds, only: cls, check: false });
      rows.pop();
      const x = r.classes[0];
      const { rows: dear } = await knex.raw(
        `select calls, round((total_exec_time + total_plan_time)::numeric, 1) as ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 140) as query
           from public.pg_stat_statements where query not like '%pg_stat_statements%' order by total_exec_time + total_plan_time desc limit 3`,
      );
      top.push(`- ${cls}: ${dear.map((d: { calls: string; ms: string; query: string }) => `${d.ms} ms in ${d.calls} calls: \`${d.query}\``).join('; ')}`);
      rows.push({
        scenario: `  ${cls}, alone at ${perClassRate}/s`,
        rps: x?.rps,
        p50: x?.p50,
        p99: x?.p99,
        errors: x?.errors,
        cpuMs,
        statements: sql,
        note: hitRatio === undefined ? 'no cached read' : `cache hit ratio ${(hitRatio * 100).toFixed(1)} %`,
      });
    }

    // 3. the sustained rate, caches on
    if (part('search')) {
      const on = await search('day mix (caches on)');
      extra.sustainedRateCachesOn = on.best;
      extra.firstFailingRateCachesOn = on.failedAt;
    }

    // 4. caches off (PRINCIPAL_CACHE_SECONDS=0: logged-in persons and cached GET answers)
    if (part('off')) {
      say('starting both API processes with the caches off (PRINCIPAL_CACHE_SECONDS=0)');
      await startApis({ PRINCIPAL_CACHE_SECONDS: '0' });
      await run(`day mix, caches off, warm-up ${o.duration} s`, { rate: o.rate, seconds: o.duration });
      rows.pop();
      await run(`day mix, steady at ${o.rate}/s (caches OFF)`, { rate: o.rate, seconds: o.duration }, { perClass: true });
      const off = await search('day mix (caches OFF)');
      extra.sustainedRateCachesOff = off.best;
      extra.firstFailingRateCachesOff = off.failedAt;
    }
    extra.topStatements = `\n\nPostgreSQL time per class alone (top 3 statements, execution + planning):\n${top.join('\n')}`;
    extra.readBacks = checksTotal;
    extra.staleAnswers = staleTotal;
    extra.loadavgAtEnd = os.loadavg()[0].toFixed(2);
  } finally {
    for (const ch of children) ch.kill('SIGTERM');
    await sleep(1500);
    await closeContainer(c).catch(() => {});
    smtp.close();
    await redis.stop().catch(() => {});
    await pg.stop().catch(() => {});
  }
  const table = renderTable(rows, extra);
  fs.mkdirSync(o.out, { recursive: true });
  fs.writeFileSync(path.join(o.out, 'bench-day.json'), JSON.stringify({ rows, extra }, null, 2));
  fs.writeFileSync(path.join(o.out, 'bench-day.md'), table);
  process.stdout.write(`\n${table}\n`);
  if (!o.data) fs.rmSync(work, { recursive: true, force: true });
}
