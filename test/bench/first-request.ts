import 'reflect-metadata';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startLocalPostgres, startLocalRedis } from '../../src/platform/dev/local-services';
import { loadEnv } from '../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../src/container';
import { startServer } from '../../src/server';
import { TenantResolver } from '../../src/platform/tenant-scope/tenant-resolver';
import { PrincipalCache } from '../../src/platform/auth/principal-cache';
import { TENANT_POOLS } from '../../src/platform/tokens';
import { cpuSeconds, pidsMatching } from './proc-stats';
import { swtToken } from './generate-tenants';

/**
 * What a tenant's first request costs, phase by phase (test/bench/README.md "The first seconds after a
 * start"): against the data of `npm run bench -- --data DIR` (the bench's 1,000 tenants), starts the
 * API in this process as src/server.ts does (no worker process) and sends GET /api/person with SWT
 * ONE AT A TIME (no queueing: each figure is the request's own cost):
 *   A. the process's first authenticated request (route code never run: the JIT's part);
 *   B. the first request of each of --tenants tenants (B1: the first 50 of them, B2: the rest);
 *   C. the same tenants again (warm: answered from the caches);
 *   D. the same tenants after their cached data was dropped (the statements again, on connections
 *      that have now met the tenant's schema: the catalog's part is B's statements minus D's);
 *   E. first requests of further tenants with the tenant cache emptied (the tenant's host and
 *      config read in the request);
 *   F. a new connection: opening one more tenant-group connection, timed.
 * Per phase: wall ms per request (median), API CPU ms per request (this process: the client's
 * fetch included; compare phases), PostgreSQL CPU ms per request, statements per request and
 * their time split by whether the connection had met the tenant's schema before.
 *   npx tsx test/bench/first-request.ts --data DIR [--tenants 300] [--env '{"STARTUP_WARMUP":"0"}']
 */
const { values: flags } = parseArgs({
  options: { data: { type: 'string' }, tenants: { type: 'string', default: '300' }, env: { type: 'string', default: '{}' } },
});
if (!flags.data) throw new Error('--data DIR (a directory `npm run bench -- --data DIR` provisioned)');
const N = Number(flags.tenants);
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN);

/** Every statement sent on any connection: its time, and whether that connection had met the statement's tenant schema. */
const seen = new WeakMap<object, Set<string>>();
let stats = { statements: 0, coldSchema: 0, coldMs: 0, warmMs: 0 };
// eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with the client as this (.apply below)
const originalQuery = pg.Client.prototype.query as (...a: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (this: object, ...args: unknown[]) {
  const first = args[0] as string | { text?: string };
  const text = typeof first === 'string' ? first : (first?.text ?? '');
  const schema = /"?(tenant_bench\d{4}|tenant_large)"?\./.exec(text)?.[1];
  if (!schema) return originalQuery.apply(this, args);
  let schemas = seen.get(this);
  if (!schemas) seen.set(this, (schemas = new Set()));
  const cold = !schemas.has(schema);
  schemas.add(schema);
  const t0 = performance.now();
  const done = () => {
    const ms = performance.now() - t0;
    stats.statements++;
    if (cold) {
      stats.coldSchema++;
      stats.coldMs += ms;
    } else stats.warmMs += ms;
  };
  // knex passes a callback; other callers get a promise
  const last = args.length - 1;
  if (typeof args[last] === 'function') {
    const callback = args[last] as (...r: unknown[]) => unknown;
    args[last] = (...r: unknown[]) => {
      done();
      return callback(...r);
    };
    return originalQuery.apply(this, args);
  }
  const result = originalQuery.apply(this, args);
  if (result instanceof Promise) result.then(done, done);
  return result;
};

async function main() {
  const dir = path.resolve(flags.data!);
  const pgService = await startLocalPostgres({ dataDir: path.join(dir, 'pg'), persistent: true, fsync: false });
  const redis = await startLocalRedis({ dir: path.join(dir, 'redis') });
  const env = loadEnv({ LOG_LEVEL: 'silent', API_RATE_LIMIT_CEILING_PER_MINUTE: '0', ...JSON.parse(flags.env) });
  const c = buildContainer(env, { databaseUrl: pgService.url, redisUrl: redis.url });
  const pgPids = () => pidsMatching(path.join(dir, 'pg'));
  const pgCpu = () => pgPids().reduce((s, p) => s + cpuSeconds(p, { reaped: true }), 0);
  const t0 = performance.now();
  const server = await startServer(c, 0);
  const startMs = performance.now() - t0;
  const base = `http://127.0.0.1:${server.port}`;
  const token = `SWT ${swtToken('user')}`;
  const host = (i: number) => `bench${String(i).padStart(4, '0')}.bench.localhost`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // node:http, not fetch: fetch does not send a Host header of ours
  const get = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}/api/person`, { agent, headers: { Host: host(i), Authorization: token } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${host(i)}: ${res.statusCode} ${body}`))));
      });
      req.on('error', reject);
    });
  const rows: string[] = [];
  const phase = async (name: string, ids: number[], before?: () => void) => {
    before?.();
    stats = { statements: 0, coldSchema: 0, coldMs: 0, warmMs: 0 };
    const walls: number[] = [];
    const cpu0 = process.cpuUsage();
    const pg0 = pgCpu();
    for (const i of ids) {
      const w0 = performance.now();
      await get(i);
      walls.push(performance.now() - w0);
    }
    const cpu = process.cpuUsage(cpu0);
    const pgMs = (pgCpu() - pg0) * 1000;
    const n = ids.length;
    const row = `| ${name} | ${n} | ${median(walls).toFixed(2)} | ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} | ${(pgMs / n).toFixed(2)} | ${(stats.statements / n).toFixed(2)} | ${(stats.coldSchema / n).toFixed(2)} | ${stats.coldSchema ? (stats.coldMs / stats.coldSchema).toFixed(2) : '-'} | ${stats.statements - stats.coldSchema ? (stats.warmMs / (stats.statements - stats.coldSchema)).toFixed(2) : '-'} |`;
    rows.push(row);
    process.stdout.write(`${row}\n`);
  };
  console.log(`start (tenant cache, connections, before listening): ${startMs.toFixed(0)} ms`);
  console.log(
    '| phase | requests | wall ms (median) | API CPU ms/req | PostgreSQL CPU ms/req | statements/req | on a connection new to the schema /req | ms per such statement | ms per other statement |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  const ids = Array.from({ length: N }, (_, k) => k + 2);
  await phase('A. first request of the process', [1]);
  await phase('B1. first request of a tenant (tenants 2-51)', ids.slice(0, 50));
  await phase(`B2. first request of a tenant (tenants 52-${N + 1})`, ids.slice(50));
  await phase('C. the same tenants again (warm)', ids);
  const principals = c.resolve(PrincipalCache);
  await phase('D. again, their cached data dropped', ids, () => ids.forEach((i) => principals.forgetSchema(`tenant_bench${String(i).padStart(4, '0')}`)));
  const more = Array.from({ length: Math.min(100, 997 - N) }, (_, k) => N + 2 + k);
  await phase('E. first request, tenant cache emptied', more, () => c.resolve(TenantResolver).clear());
  // F: one more connection of a tenant group, as a request meets when its group has none free
  const group = c.resolve(TENANT_POOLS).groups[0].client as {
    pool: { numFree(): number; numUsed(): number };
    acquireRawConnection(): Promise<pg.Client>;
    destroyRawConnection(c: pg.Client): Promise<void>;
  };
  const opens: number[] = [];
  for (let k = 0; k < 10; k++) {
    const o0 = performance.now();
    const conn = await group.acquireRawConnection();
    opens.push(performance.now() - o0);
    await group.destroyRawConnection(conn);
  }
  console.log(`F. a new connection (backend start, SCRAM, search_path): median ${median(opens).toFixed(1)} ms wall over 10`);
  agent.destroy();
  await server.close();
  await closeContainer(c);
  await redis.stop();
  await pgService.stop();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
