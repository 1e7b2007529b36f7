import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import knexFactory, { type Knex } from 'knex';
import { freePort, startLocalPostgres, startLocalRedis } from '../../src/platform/dev/local-services';
import { BENCH_PASSWORD } from './generate-tenants';
import { startFlags } from './start-flags';

/** Shared by the side-by-side comparisons (signon-ab.ts, get-ab.ts): two checkouts, one PostgreSQL and Redis. */

export function send(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

export async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await send(url)).status === 200) return;
    } catch {
      // not listening yet: try again
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

export interface CheckoutApi {
  name: string;
  base: string;
  child: ChildProcess;
}

/** The API of one checkout, started as `npm start` does, on the given PostgreSQL and Redis. */
export async function startCheckoutApi(
  name: string,
  dir: string,
  databaseUrl: string,
  redisUrl: string,
  nodeArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<CheckoutApi> {
  const port = await freePort();
  const child = spawn(process.execPath, [...startFlags(dir), ...nodeArgs, '--import', 'tsx', path.join(dir, 'src/main.ts')], {
    cwd: dir,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      SMTP_URL: 'smtp://127.0.0.1:9',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
      HOST: '127.0.0.1',
      API_RATE_LIMIT_CEILING_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/readyz`);
  return { name, base, child };
}

/** The session cookie (tg-visit=...) of a login on the tenant of `host`. */
export async function login(base: string, host: string, userName: string, password = BENCH_PASSWORD): Promise<string> {
  const body = JSON.stringify({ user_name: userName, password, login: 1 });
  const r = await send(`${base}/api/login`, { method: 'POST', headers: { Host: host, 'Content-Type': 'application/json' }, body });
  const cookie = r.headers['set-cookie']?.find((c) => c.startsWith('tg-visit='))?.split(';')[0];
  if (!cookie) throw new Error(`login ${userName}@${host} on ${base} failed: ${r.status} ${r.text}`);
  return cookie;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export interface AbBed {
  pg: { url: string };
  redis: { url: string };
  knex: Knex;
  /** Starts one checkout's API (`env` over the defaults, e.g. SMTP_URL); stopped when the run ends. */
  start: (name: string, dir: string, nodeArgs?: string[], env?: NodeJS.ProcessEnv) => Promise<CheckoutApi>;
}

/**
 * Runs a side-by-side comparison as a script: PostgreSQL and Redis from a data dir the bench
 * provisioned, the APIs it starts stopped at the end, the process' exit code from the outcome.
 */
export function runAb(dataDir: string, body: (bed: AbBed) => Promise<void>): void {
  const main = async () => {
    const work = path.resolve(dataDir);
    const pg = await startLocalPostgres({ dataDir: path.join(work, 'pg'), persistent: true, fsync: false });
    const redis = await startLocalRedis({ dir: path.join(work, 'redis') });
    const knex = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 2 } });
    const children: ChildProcess[] = [];
    const start = async (name: string, dir: string, nodeArgs: string[] = [], env: NodeJS.ProcessEnv = {}) => {
      const api = await startCheckoutApi(name, dir, pg.url, redis.url, nodeArgs, env);
      children.push(api.child);
      return api;
    };
    try {
      await body({ pg, redis, knex, start });
    } finally {
      for (const c of children) c.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 1500));
      await knex.destroy();
      await redis.stop();
      await pg.stop();
    }
  };
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
