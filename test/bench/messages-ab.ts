import 'reflect-metadata';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startCountingSink } from './counting-sink';
import { login, median, runAb, type CheckoutApi } from './ab-support';
import { runLoad, type LoadRequest } from './load-runner';
import { commOf, cpuSeconds, descendantsOf, pidsMatching } from './proc-stats';

/**
 * POST /api/messages to the SMTP sink, end to end, two checkouts compared on one machine:
 *   tsx test/bench/messages-ab.ts --data DIR --a CHECKOUT_A --b CHECKOUT_B [--rounds 4] [--count 5000] [--warm 2000]
 *     [--a-node-args ARGS] [--b-node-args ARGS]
 * DIR is a data dir the bench provisioned (npm run bench -- --data DIR). Both checkouts relay the
 * same outboxes, so only one runs at a time: each round starts a side's API (and its workers),
 * sends --warm messages untimed (code compiled, pools open), then --count messages timed from the
 * first POST until the sink has the last mail, and stops it. Rounds alternate (a b, then b a, ...).
 * Read the medians: messages per second end to end, and CPU ms per message of the API, the
 * workers, PostgreSQL, Redis and this process (the SMTP sink).
 */
const { values: flags } = parseArgs({
  options: {
    data: { type: 'string' },
    a: { type: 'string' },
    b: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    count: { type: 'string', default: '5000' },
    warm: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '32' },
    'a-node-args': { type: 'string', default: '' },
    'b-node-args': { type: 'string', default: '' },
  },
});
const say = (m: string) => process.stdout.write(`[ab ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
const LARGE = 'large.bench.localhost';
const GROUPS = ['api', 'workers', 'postgres', 'redis', 'sink'] as const;
type Group = (typeof GROUPS)[number];

runAb(flags.data!, async ({ start }) => {
  const sink = await startCountingSink();
  const smtpPort = sink.port;
  const pgDir = path.join(path.resolve(flags.data!), 'pg');
  const results: Record<'a' | 'b', { rate: number[]; ms: Record<Group, number[]> }> = {
    a: { rate: [], ms: { api: [], workers: [], postgres: [], redis: [], sink: [] } },
    b: { rate: [], ms: { api: [], workers: [], postgres: [], redis: [], sink: [] } },
  };
  const requestsOf = (cookie: string, n: number, tag: string): LoadRequest[] =>
    Array.from({ length: n }, (_, i) => ({
      method: 'POST',
      path: '/api/messages',
      headers: { Host: LARGE, Cookie: cookie, 'Content-Type': 'application/json' },
      body: JSON.stringify({ user_name: `p${1 + (i % 9999)}`, title: `AB ${tag} ${i}`, text: 'Benchmark message', send_medium: 'email' }),
    }));
  const sendAll = async (api: CheckoutApi, requests: LoadRequest[]) => {
    const before = sink.count;
    const r = await runLoad({ url: api.base, requests, amount: requests.length, connections: Number(flags.connections) });
    const accepted = requests.length - r.errors - r.non2xx;
    if (accepted < requests.length) say(`${api.name}: ${r.errors} errors, ${r.non2xx} non-2xx`);
    const until = Date.now() + 300_000;
    while (sink.count - before < accepted && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
    if (sink.count - before < accepted) throw new Error(`${api.name}: ${sink.count - before} of ${accepted} delivered`);
    return r;
  };
  const cpuOf = (api: CheckoutApi): Record<Group, number> => {
    const sum = (pids: number[]) => pids.reduce((s, p) => s + cpuSeconds(p), 0);
    const sinkCpu = process.cpuUsage();
    return {
      api: cpuSeconds(api.child.pid!),
      workers: sum(descendantsOf(api.child.pid!).filter((p) => p !== api.child.pid)),
      postgres: sum(pidsMatching(pgDir)),
      redis: sum(descendantsOf(process.pid).filter((p) => commOf(p) === 'redis-server')),
      sink: (sinkCpu.user + sinkCpu.system) / 1e6,
    };
  };
  for (let round = 0; round < Number(flags.rounds); round++) {
    for (const name of round % 2 ? (['b', 'a'] as const) : (['a', 'b'] as const)) {
      const api = await start(name, flags[name]!, flags[`${name}-node-args`].split(/\s+/).filter(Boolean), { SMTP_URL: `smtp://127.0.0.1:${smtpPort}` });
      const cookie = (await login(api.base, LARGE, 'p0')).toString();
      await sendAll(api, requestsOf(cookie, Number(flags.warm), `${name}${round}w`));
      const count = Number(flags.count);
      const c0 = cpuOf(api);
      const r = await sendAll(api, requestsOf(cookie, count, `${name}${round}`));
      // from the first POST (after the load generator's start-up) until the sink had the last mail
      const seconds = (sink.lastMailAt - r.startedAtMs) / 1000;
      const c1 = cpuOf(api);
      const ms = Object.fromEntries(GROUPS.map((g) => [g, ((c1[g] - c0[g]) * 1000) / count])) as Record<Group, number>;
      results[name].rate.push(count / seconds);
      for (const g of GROUPS) results[name].ms[g].push(ms[g]);
      say(
        `round ${round + 1} ${name}: ${(count / seconds).toFixed(0)} messages/s end to end (POSTs ${r.requestsPerSecond.toFixed(0)}/s, p99 ${r.p99} ms); CPU ms/message ${GROUPS.map((g) => `${g} ${ms[g].toFixed(3)}`).join(', ')}`,
      );
      await new Promise<void>((res) => {
        api.child.once('exit', () => res());
        api.child.kill('SIGTERM');
      });
    }
  }
  sink.close();
  const { a, b } = results;
  say(`median messages/s a ${median(a.rate).toFixed(0)}, b ${median(b.rate).toFixed(0)}: b/a ${(median(b.rate) / median(a.rate)).toFixed(3)}`);
  for (const g of GROUPS)
    say(`median CPU ms/message ${g}: a ${median(a.ms[g]).toFixed(3)}, b ${median(b.ms[g]).toFixed(3)}: b/a ${(median(b.ms[g]) / median(a.ms[g])).toFixed(3)}`);
  const total = (s: typeof a) => GROUPS.reduce((sum, g) => sum + median(s.ms[g]), 0);
  say(`sum of medians, CPU ms/message: a ${total(a).toFixed(3)}, b ${total(b).toFixed(3)}: b/a ${(total(b) / total(a)).toFixed(3)}`);
});
