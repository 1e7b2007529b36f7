import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { startLocalPostgres, startLocalRedis, freePort } from '../../src/platform/dev/local-services';
import { loadEnv } from '../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../src/container';
import { KNEX } from '../../src/platform/tokens';
import { migrateAll } from '../../src/platform/migrations/migrate-all';

interface Memory {
  rawRss: number;
  rss: number;
  heapUsed: number;
  caches: { knownHosts: number; unknownHosts: number; tenants: number; max: number };
}

/**
 * Host-header flood: does a stream of random (valid) Host values grow the API's memory?
 * `npx tsx test/bench/host-flood.ts [--requests 100000] [--concurrency 32] [--warmup 2000]`
 * Starts PostgreSQL and Redis of its own, the API as `npm start` does (host-flood-api.ts: same
 * container and server, no workers, no demo tenants), then sends the requests over loopback and
 * prints the API's RSS after a forced garbage collection (and the raw RSS before it).
 */
const { values: flags } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '32' },
    /**
     * Requests to one fixed host first, so "before" is the process under database traffic, not a
     * cold one: /readyz queries PostgreSQL and Redis without touching the tenant caches.
     */
    warmup: { type: 'string', default: '20000' },
    'warmup-path': { type: 'string', default: '/readyz' },
    /** NAME=value for the API process, e.g. --env TENANT_HOST_CACHE_MAX=100 to compare */
    env: { type: 'string', multiple: true, default: [] },
    'node-args': { type: 'string', default: '' },
    /** Control run: every request uses one and the same unknown host (no cache growth). */
    'same-host': { type: 'boolean', default: false },
  },
});
const REQUESTS = Number(flags.requests);
const CONCURRENCY = Number(flags.concurrency);
const WARMUP = Number(flags.warmup);
const MB = (b: number) => (b / 1024 / 1024).toFixed(1);
const say = (m: string) => process.stderr.write(`${m}\n`);

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`API exited with ${code}`));
    child.once('exit', exited);
    child.once('message', (m) => {
      child.off('exit', exited);
      resolve(m as T);
    });
  });
}

async function measure(api: ChildProcess): Promise<Memory> {
  const answer = nextMessage<Memory>(api);
  api.send('measure');
  return answer;
}

/** `count` GET requests with random valid host names, `CONCURRENCY` at a time; answers by status. */
async function flood(port: number, count: number, sameHost = flags['same-host'], urlPath = '/api/person'): Promise<Record<number, number>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const statuses: Record<number, number> = {};
  let next = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const host = sameHost ? 'always-the-same.flood.example' : `${randomBytes(8).toString('hex')}.flood.example`;
      const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent, headers: { Host: host } }, (res) => {
        statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
        res.resume().on('end', resolve);
      });
      req.on('error', reject);
    });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) await one();
    }),
  );
  agent.destroy();
  return statuses;
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'host-flood-'));
  fs.chmodSync(work, 0o755);
  const pg = await startLocalPostgres({ dataDir: path.join(work, 'pg'), persistent: false, fsync: false });
  const redis = await startLocalRedis({ dir: path.join(work, 'redis') });
  const c = buildContainer(loadEnv({ LOG_LEVEL: 'warn' }), { databaseUrl: pg.url, redisUrl: redis.url });
  await migrateAll(c.resolve(KNEX), { concurrency: 1 });
  await closeContainer(c);
  const extraEnv = Object.fromEntries(flags.env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  const nodeArgs = flags['node-args'].split(/\s+/).filter(Boolean);
  const api = spawn(process.execPath, ['--expose-gc', ...nodeArgs, '--import', 'tsx', path.join(__dirname, 'host-flood-api.ts')], {
    env: { ...process.env, ...extraEnv, PORT: String(await freePort()), HOST: '127.0.0.1', DATABASE_URL: pg.url, REDIS_URL: redis.url, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const { port } = await nextMessage<{ port: number }>(api);
    const atStart = await measure(api);
    await flood(port, WARMUP, true, flags['warmup-path']);
    const before = await measure(api);
    const t0 = Date.now();
    const statuses: Record<number, number> = {};
    const samples: Memory[] = [];
    // In tenths, so a steady state (heap settling) is told apart from growth that goes on.
    for (let part = 0; part < 10; part++) {
      for (const [k, v] of Object.entries(await flood(port, REQUESTS / 10))) statuses[Number(k)] = (statuses[Number(k)] ?? 0) + v;
      samples.push(await measure(api));
    }
    const seconds = (Date.now() - t0) / 1000;
    const after = samples[samples.length - 1];
    const result = {
      requests: REQUESTS,
      concurrency: CONCURRENCY,
      seconds: Number(seconds.toFixed(1)),
      statuses,
      rssAtStartMB: Number(MB(atStart.rss)),
      rawRssBeforeMB: Number(MB(before.rawRss)),
      rawRssAfterMB: Number(MB(after.rawRss)),
      rawChangeMB: Number(MB(after.rawRss - before.rawRss)),
      rssBeforeMB: Number(MB(before.rss)),
      rssAfterMB: Number(MB(after.rss)),
      changeMB: Number(MB(after.rss - before.rss)),
      heapUsedBeforeMB: Number(MB(before.heapUsed)),
      heapUsedAfterMB: Number(MB(after.heapUsed)),
      rssPerTenthMB: samples.map((m) => Number(MB(m.rss))),
      rawRssPerTenthMB: samples.map((m) => Number(MB(m.rawRss))),
      cachesAfter: after.caches,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    say(
      `after ${WARMUP} warm-up requests -> after ${REQUESTS} random hosts (${seconds.toFixed(1)} s): ` +
        `RSS ${MB(before.rawRss)} -> ${MB(after.rawRss)} MB (change ${MB(after.rawRss - before.rawRss)}, target < 20); ` +
        `after GC ${MB(before.rss)} -> ${MB(after.rss)} MB; live heap ${MB(before.heapUsed)} -> ${MB(after.heapUsed)} MB`,
    );
  } finally {
    api.kill('SIGTERM');
    await new Promise((r) => api.once('exit', r));
    await redis.stop();
    await pg.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  say(`host-flood failed: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
