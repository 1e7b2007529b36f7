import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { startLocalPostgres, startLocalRedis, freePort } from '../../src/platform/dev/local-services';
import { runLoad } from './load-runner';
import { startFlags } from './start-flags';
import { swtToken } from './generate-tenants';

/**
 * The first seconds after a start, two checkouts in alternating rounds (test/bench/README.md "The first
 * seconds after a start"): on the data of `npm run bench -- --data DIR`, each round starts one checkout's
 * product as `npm start` does, and from its first ready answer sends GET /api/person with SWT over every
 * small tenant (32 connections) for --seconds; prints p99 and requests of each round and the medians.
 * On a shared machine whose load swings, rounds that alternate are the comparison that holds.
 *   npx tsx test/bench/cold-ab.ts --data DIR --a CHECKOUT_A --b CHECKOUT_B [--rounds 3] [--seconds 10]
 */
const { values: flags } = parseArgs({
  options: {
    data: { type: 'string' },
    a: { type: 'string' },
    b: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    tenants: { type: 'string', default: '1000' },
  },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

async function main() {
  const dir = path.resolve(flags.data!);
  const pg = await startLocalPostgres({ dataDir: path.join(dir, 'pg'), persistent: true, fsync: false });
  const redis = await startLocalRedis({ dir: path.join(dir, 'redis') });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const token = `SWT ${swtToken('user')}`;
  const requests = Array.from({ length: Number(flags.tenants) - 1 }, (_, i) => ({
    method: 'GET',
    path: '/api/person',
    headers: { Host: `bench${String(i + 1).padStart(4, '0')}.bench.localhost`, Authorization: token },
  }));
  const results: Record<string, { p99: number; total: number }[]> = { a: [], b: [] };
  for (let round = 0; round < Number(flags.rounds); round++) {
    for (const side of round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
      const checkout = path.resolve(flags[side]!);
      const api: ChildProcess = spawn(process.execPath, [...startFlags(checkout), '--import', 'tsx', path.join(checkout, 'src/main.ts')], {
        cwd: checkout,
        env: {
          ...process.env,
          PORT: String(port),
          DATABASE_URL: pg.url,
          REDIS_URL: redis.url,
          LOG_LEVEL: 'warn',
          HOST: '127.0.0.1',
          API_RATE_LIMIT_CEILING_PER_MINUTE: '0',
          SMTP_URL: 'smtp://127.0.0.1:1',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const t0 = Date.now();
      while (
        !(await fetch(`${base}/readyz`).then(
          (r) => r.ok,
          () => false,
        ))
      )
        await sleep(100);
      const startS = (Date.now() - t0) / 1000;
      const r = await runLoad({ url: base, requests, connections: 32, duration: Number(flags.seconds) });
      results[side].push({ p99: r.p99, total: r.total });
      console.log(
        `round ${round + 1} ${side}: ready after ${startS.toFixed(1)} s; first ${flags.seconds} s: p99 ${r.p99} ms, p50 ${r.p50} ms, ${r.total} requests, ${r.errors + r.non2xx} errors`,
      );
      const exited = new Promise((res) => api.once('exit', res));
      api.kill('SIGTERM');
      await Promise.race([exited, sleep(30_000).then(() => api.kill('SIGKILL'))]);
    }
  }
  for (const side of ['a', 'b'] as const)
    console.log(`${side}: median p99 ${median(results[side].map((x) => x.p99))} ms, median requests ${median(results[side].map((x) => x.total))}`);
  await redis.stop();
  await pg.stop();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
