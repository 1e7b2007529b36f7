import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { login, median, runAb, type CheckoutApi } from './ab-support';
import { runLoad, type LoadRequest } from './load-runner';
import { cpuSeconds } from './proc-stats';
import { swtToken } from './generate-tenants';

/**
 * GET /api/person with a session (or SWT, --auth swt) over every tenant, two checkouts compared on one machine:
 *   tsx test/bench/get-ab.ts --data DIR --a CHECKOUT_A --b CHECKOUT_B [--rounds 6] [--seconds 5] [--path /api/person] [--auth session|swt]
 *     [--a-node-args ARGS] [--b-node-args ARGS]   (node flags for one side's API, e.g. GC settings)
 * DIR is a data dir the bench provisioned (npm run bench -- --data DIR). Each checkout runs its own
 * API on the same PostgreSQL and Redis. The rounds alternate (a b, then b a, ...), each side alone
 * on the machine for --seconds, so both meet the same slow swings of a shared machine; the medians
 * of API CPU per request and of req/s per side, and their ratios b/a, are what to read.
 */
const { values: flags } = parseArgs({
  options: {
    data: { type: 'string' },
    a: { type: 'string' },
    b: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    path: { type: 'string', default: '/api/person' },
    auth: { type: 'string', default: 'session' },
    'a-node-args': { type: 'string', default: '' },
    'b-node-args': { type: 'string', default: '' },
  },
});
const say = (m: string) => process.stdout.write(`[ab ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

async function requestsFor(api: CheckoutApi, hosts: string[]): Promise<LoadRequest[]> {
  const out: LoadRequest[] = [];
  if (flags.auth === 'swt')
    return hosts.map((host) => ({
      method: 'GET',
      path: flags.path,
      headers: { Host: host, Authorization: `SWT ${swtToken(host.startsWith('large.') ? 'p0' : 'user')}` },
    }));
  for (const host of hosts) {
    const cookie = await login(api.base, host, host.startsWith('large.') ? 'p0' : 'user');
    out.push({ method: 'GET', path: flags.path, headers: { Host: host, Cookie: cookie } });
  }
  return out;
}

runAb(flags.data!, async ({ knex, start }) => {
  const hosts: string[] = (await knex('platform.tenant_hosts').select('host')).map((r: { host: string }) => r.host);
  const sides: { api: CheckoutApi; requests: LoadRequest[]; cpu: number[]; rps: number[] }[] = [];
  for (const [name, dir] of [
    ['a', flags.a!],
    ['b', flags.b!],
  ] as const) {
    const api = await start(name, dir, flags[`${name}-node-args`].split(/\s+/).filter(Boolean));
    sides.push({ api, requests: await requestsFor(api, hosts), cpu: [], rps: [] });
    say(`${name}: ${dir} on ${api.base}, ${hosts.length} tenants`);
  }
  const load = (s: (typeof sides)[number], seconds: number) =>
    runLoad({ url: s.api.base, requests: s.requests, connections: Number(flags.connections), duration: seconds });
  for (const s of sides) await load(s, 3); // warm: every tenant met, code paths compiled
  for (let round = 0; round < Number(flags.rounds); round++) {
    const order = round % 2 ? [sides[1], sides[0]] : sides;
    for (const s of order) {
      const cpu0 = cpuSeconds(s.api.child.pid!);
      const r = await load(s, Number(flags.seconds));
      const ms = ((cpuSeconds(s.api.child.pid!) - cpu0) * 1000) / Math.max(1, r.total);
      if (r.errors || r.non2xx) say(`${s.api.name}: ${r.errors} errors, ${r.non2xx} non-2xx`);
      s.cpu.push(ms);
      s.rps.push(r.requestsPerSecond);
      say(`round ${round + 1} ${s.api.name}: ${r.requestsPerSecond.toFixed(0)} req/s, p99 ${r.p99} ms, API CPU ${ms.toFixed(3)} ms/request`);
    }
  }
  const [a, b] = sides;
  say(`median API CPU ms/request a ${median(a.cpu).toFixed(3)}, b ${median(b.cpu).toFixed(3)}: b/a ${(median(b.cpu) / median(a.cpu)).toFixed(3)}`);
  say(`median req/s a ${median(a.rps).toFixed(0)}, b ${median(b.rps).toFixed(0)}: b/a ${(median(b.rps) / median(a.rps)).toFixed(3)}`);
});
