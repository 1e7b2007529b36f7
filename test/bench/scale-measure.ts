/**
 * Investigation tool for the scale bench (issue 22 point 6; test/bench/README.md "Finding what
 * costs at 10,000 tenants"): against the PostgreSQL and Redis that `scale-probe.ts DIR 0 serve`
 * runs, starts the API as `npm start` does and requests the first K tenants in turn: pass 1
 * (cold), pass 2, --warmup seconds, then a timed run, printing per request the CPU of the API
 * process and of PostgreSQL, PostgreSQL's PSS, wait events sampled every 50 ms, the statements
 * that took most time (pg_stat_statements) and each backend's PSS.
 *   npx tsx test/bench/scale-measure.ts DIR K [duration 10] [warmup 10]
 * PROBE_ENV='{"PRINCIPAL_CACHE_SECONDS":"5"}' sets API env; PROBE_NODE_ARGS='--cpu-prof
 * --cpu-prof-dir=prof' profiles the API; PROBE_PERF=file records PostgreSQL with perf during pass 1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import pg from 'pg';
import { runLoad } from './load-runner';
import { BENCH_SECRET } from './generate-tenants';
import { PeakSampler, pidsMatching, cpuSeconds } from './proc-stats';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function swt(): string {
  const body = `Issuer=bench&ExpiresOn=${Math.floor(Date.now() / 1000) + 7200}&username=user`;
  const sig = createHmac('sha256', Buffer.from(BENCH_SECRET, 'utf8')).update(body).digest('base64');
  return `SWT ${body}&HMACSHA256=${encodeURIComponent(sig)}`;
}
async function main() {
  const [dir, kStr, durStr, warmStr] = process.argv.slice(2);
  const K = Number(kStr),
    duration = Number(durStr ?? 10),
    warmup = Number(warmStr ?? 10);
  const urls = JSON.parse(fs.readFileSync(path.join(dir, 'urls.json'), 'utf8'));
  const port = 40000 + Math.floor(Math.random() * 1000);
  const base = `http://127.0.0.1:${port}`;
  const extraEnv = JSON.parse(process.env.PROBE_ENV ?? '{}');
  const api = ((globalThis as any).api = spawn(
    process.execPath,
    ['--import', 'tsx', ...(process.env.PROBE_NODE_ARGS ?? '').split(' ').filter(Boolean), path.resolve(__dirname, '../../src/main.ts')],
    {
      env: {
        ...process.env,
        PORT: String(port),
        DATABASE_URL: urls.pg,
        REDIS_URL: urls.redis,
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        DEMO_TENANTS: '0',
        TENANT_SPARE_SCHEMAS: '0',
        API_RATE_LIMIT_CEILING_PER_MINUTE: '0',
        ...extraEnv,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  ));
  while (
    !(await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    ))
  )
    await sleep(250);
  const db = new pg.Client({ connectionString: urls.pg });
  await db.connect();
  await db.query('create extension if not exists pg_stat_statements schema public');
  const token = swt();
  const requests = Array.from({ length: K }, (_, i) => ({
    method: 'GET',
    path: '/api/person',
    headers: { Host: `bench${String(i + 1).padStart(4, '0')}.bench.localhost`, Authorization: token },
  }));
  const pgPids = () => pidsMatching(path.join(dir, 'pg'));
  const cpu = () => ({ api: cpuSeconds(api.pid!), pg: pgPids().reduce((s, p) => s + cpuSeconds(p, { reaped: true }), 0) });
  const phase = async (name: string, load: any) => {
    const c0 = cpu(),
      t0 = Date.now();
    const r = await runLoad({ url: base, requests, connections: 32, ...load });
    const c1 = cpu();
    console.log(
      `${name}: ${((Date.now() - t0) / 1000).toFixed(1)} s ${r.requestsPerSecond.toFixed(0)} req/s p50 ${r.p50} p99 ${r.p99} err ${r.errors + r.non2xx}; per request CPU ms: api ${(((c1.api - c0.api) * 1000) / r.total).toFixed(2)} pg ${(((c1.pg - c0.pg) * 1000) / r.total).toFixed(2)}`,
    );
    return r;
  };
  let perf: any = null;
  if (process.env.PROBE_PERF) {
    await runLoad({ url: base, requests: requests.slice(0, 8), amount: 256, connections: 32 });
    const rows = pgPids().map((pid) => ({ pid }));
    console.log(
      'perf on',
      rows.map((r: any) => r.pid),
    );
    perf = spawn('perf', ['record', '-F', '499', '-g', '-o', process.env.PROBE_PERF, '-p', rows.map((r: any) => r.pid).join(',')], { stdio: 'ignore' });
    await sleep(1000);
  }
  await phase('pass 1 (every tenant once, cold)', { amount: K });
  if (perf) {
    perf.kill('SIGINT');
    await new Promise((r) => perf.once('exit', r));
  }
  await phase('pass 2 (every tenant once again)', { amount: K });
  if (process.env.PROBE_PAUSE) {
    await sleep(Number(process.env.PROBE_PAUSE) * 1000);
    await phase('pass 3 after pause', { amount: K });
  }
  if (warmup) await phase('warmup', { duration: warmup });
  await db.query('select public.pg_stat_statements_reset()');
  await db.query("select pg_stat_reset_shared('io')").catch(() => {});
  const waits = new Map<string, number>();
  let sampling = true;
  const sampler = new PeakSampler({ postgres: () => pidsMatching(path.join(dir, 'pg')) });
  sampler.start();
  const samp = (async () => {
    while (sampling) {
      const { rows } = await db.query(
        "select coalesce(wait_event_type,'CPU')||':'||coalesce(wait_event,'-') w, state from pg_stat_activity where backend_type='client backend' and pid <> pg_backend_pid() and application_name <> 'probe'",
      );
      for (const r of rows) {
        const k = `${r.state} ${r.w}`;
        waits.set(k, (waits.get(k) ?? 0) + 1);
      }
      await sleep(50);
    }
  })();
  const r = await phase('timed', { duration });
  sampling = false;
  await samp;
  sampler.stop();
  console.log(
    `K=${K}: ${r.requestsPerSecond.toFixed(0)} req/s p50 ${r.p50} p99 ${r.p99} errors ${r.errors + r.non2xx}; PG PSS peak ${((sampler.pssPeaks.get('postgres') ?? 0) / 2 ** 20).toFixed(0)} MiB`,
  );
  console.log('wait samples', [...waits].sort((a, b) => b[1] - a[1]).slice(0, 12));
  const top = await db.query(
    `select calls, round(total_exec_time::numeric,0) exec_ms, round(total_plan_time::numeric,0) plan_ms, shared_blks_hit hit, shared_blks_read rd, left(regexp_replace(query, '"bench[0-9]+"', 'S', 'g'), 140) q from public.pg_stat_statements order by total_exec_time + total_plan_time desc limit 12`,
  );
  console.table(top.rows);
  const mem = await db.query(
    `select pid, backend_start, (select count(*) from pg_stat_activity) n from pg_stat_activity where backend_type='client backend' and pid <> pg_backend_pid()`,
  );
  const sizes: string[] = [];
  for (const row of mem.rows) {
    await db.query('select pg_log_backend_memory_contexts($1)', [row.pid]).catch(() => {});
    try {
      const s = fs.readFileSync(`/proc/${row.pid}/smaps_rollup`, 'utf8');
      sizes.push(`${row.pid}: Pss ${/Pss:\s+(\d+)/.exec(s)?.[1]} kB, age ${((Date.now() - new Date(row.backend_start).getTime()) / 1000).toFixed(0)}s`);
    } catch {
      // the backend ended meanwhile
    }
  }
  console.log('backends', sizes);
  await db.end();
  api.kill('SIGTERM');
  await new Promise((res) => api.once('exit', res));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
process.on('exit', () => {
  try {
    (globalThis as any).api?.kill('SIGTERM');
  } catch {
    /* already gone */
  }
});
