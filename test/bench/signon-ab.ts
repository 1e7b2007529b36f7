import 'reflect-metadata';
import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import knexFactory from 'knex';
import { startLocalPostgres, startLocalRedis, freePort } from '../../src/platform/dev/local-services';
import { BENCH_PASSWORD } from './generate-tenants';
import { runLoad } from './load-runner';
import { cpuSeconds } from './proc-stats';

/**
 * Sign-on bursts of two checkouts side by side, at the same time, on one machine:
 *   tsx test/bench/signon-ab.ts --data DIR --a /path/to/checkout-a --b /path/to/checkout-b [--rounds 3] [--seconds 8]
 * DIR is a data dir the bench provisioned (npm run bench -- --data DIR). Each checkout runs its own
 * API (as `npm start` does) on the same PostgreSQL and Redis; both get the same load at the same
 * moment (the bench's scenario: 2-seat events of the large tenant, --per-event persons each (20), 32 connections),
 * each on its own events, swapped every round. On a machine shared with other work the absolute
 * rates swing from run to run; the ratio b/a of one round does not, since both meet the same noise.
 */
const { values: flags } = parseArgs({
  options: { data: { type: 'string' }, a: { type: 'string' }, b: { type: 'string' }, rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '8' }, connections: { type: 'string', default: '32' }, 'per-event': { type: 'string', default: '20' } },
});
const say = (m: string) => process.stdout.write(`[ab ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
const HOST = 'large.bench.localhost';

function send(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
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

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await send(url)).status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

async function main() {
  const work = path.resolve(flags.data!);
  const pg = await startLocalPostgres({ dataDir: path.join(work, 'pg'), persistent: true, fsync: false });
  const redis = await startLocalRedis({ dir: path.join(work, 'redis') });
  const knex = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 2 } });
  const children: ChildProcess[] = [];
  try {
    const apis: { name: string; base: string; child: ChildProcess; cookie: string }[] = [];
    for (const [name, dir] of [['a', flags.a!], ['b', flags.b!]] as const) {
      const port = await freePort();
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(dir, 'src/main.ts')], {
        cwd: dir,
        env: { ...process.env, PORT: String(port), DATABASE_URL: pg.url, REDIS_URL: redis.url, SMTP_URL: 'smtp://127.0.0.1:9', LOG_LEVEL: 'error', HOST: '127.0.0.1' },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.push(child);
      const base = `http://127.0.0.1:${port}`;
      await waitFor(`${base}/readyz`);
      const body = JSON.stringify({ user_name: 'p0', password: BENCH_PASSWORD, login: 1 });
      const r = await send(`${base}/api/login`, { method: 'POST', headers: { Host: HOST, 'Content-Type': 'application/json' }, body });
      const cookie = r.headers['set-cookie']?.find((c) => c.startsWith('tg-visit='))?.split(';')[0];
      if (!cookie) throw new Error(`login on ${name} failed: ${r.status} ${r.text}`);
      apis.push({ name, base, child, cookie });
      say(`${name}: ${dir} on ${base}`);
    }
    const events: number[] = await knex.withSchema('tenant_large').table('events').where('max_participants', 2).where('starts_at', '>', new Date()).orderBy('id').limit(200).pluck('id');
    const half = Math.floor(events.length / 2);
    const sets = [events.slice(0, half), events.slice(half, 2 * half)];
    say(`${events.length} two-seat events: ${half} for each side`);
    const ratios: number[] = [];
    for (let round = 0; round < Number(flags.rounds); round++) {
      await knex.withSchema('tenant_large').table('person_events').whereIn('event_id', events).delete();
      const results = await Promise.all(
        apis.map(async (api, i) => {
          const mine = sets[(i + round) % 2];
          const requests = mine.flatMap((e, j) =>
            Array.from({ length: Number(flags['per-event']) }, (_, k) => ({ method: 'POST', path: `/api/personevents/${e}`, headers: { Host: HOST, Cookie: api.cookie, 'Content-Type': 'application/json' }, body: JSON.stringify({ user_name: `p${1 + ((j * Number(flags['per-event']) + k) % 9999)}` }) })),
          );
          const cpu0 = cpuSeconds(api.child.pid!);
          const r = await runLoad({ url: api.base, requests, connections: Number(flags.connections), duration: Number(flags.seconds) });
          const cpu = cpuSeconds(api.child.pid!) - cpu0;
          return { ...r, ok: r.total - r.non2xx - r.errors, cpuMs: (cpu * 1000) / Math.max(1, r.total) };
        }),
      );
      const oversold: unknown[] = await knex.withSchema('tenant_large').table('person_events').whereIn('event_id', events).where('status', 'signed_on').groupBy('event_id').havingRaw('count(*) > 2').select('event_id');
      const [a, b] = results;
      ratios.push(b.ok / Math.max(1, a.ok));
      for (const [i, r] of results.entries()) {
        say(`round ${round + 1} ${apis[i].name}: ${(r.ok / r.durationSeconds).toFixed(0)} sign-ons/s (${r.ok} ok of ${r.total}, non-2xx ${r.non2xx}, errors ${r.errors}), p50 ${r.p50} ms, p99 ${r.p99} ms, API CPU ${r.cpuMs.toFixed(2)} ms/request`);
      }
      say(`round ${round + 1}: b/a ${ratios.at(-1)!.toFixed(2)}, oversold events ${oversold.length}`);
      // requests cut off at the end of the round are still running in the APIs: let them finish before the rows go
      await new Promise((r) => setTimeout(r, 5000));
    }
    say(`b/a per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
    await knex.withSchema('tenant_large').table('person_events').whereIn('event_id', events).delete();
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    await knex.destroy();
    await redis.stop();
    await pg.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
