import 'reflect-metadata';
import type { ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { login, runAb } from './ab-support';
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
  options: {
    data: { type: 'string' },
    a: { type: 'string' },
    b: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '32' },
    'per-event': { type: 'string', default: '20' },
  },
});
const say = (m: string) => process.stdout.write(`[ab ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
const HOST = 'large.bench.localhost';

runAb(flags.data!, async ({ knex, start }) => {
  const apis: { name: string; base: string; child: ChildProcess; cookie: string }[] = [];
  for (const [name, dir] of [
    ['a', flags.a!],
    ['b', flags.b!],
  ] as const) {
    const api = await start(name, dir);
    apis.push({ ...api, cookie: await login(api.base, HOST, 'p0') });
    say(`${name}: ${dir} on ${api.base}`);
  }
  const events: number[] = await knex
    .withSchema('tenant_large')
    .table('events')
    .where('max_participants', 2)
    .where('starts_at', '>', new Date())
    .orderBy('id')
    .limit(200)
    .pluck('id');
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
          Array.from({ length: Number(flags['per-event']) }, (_, k) => ({
            method: 'POST',
            path: `/api/personevents/${e}`,
            headers: { Host: HOST, Cookie: api.cookie, 'Content-Type': 'application/json' },
            body: JSON.stringify({ user_name: `p${1 + ((j * Number(flags['per-event']) + k) % 9999)}` }),
          })),
        );
        const cpu0 = cpuSeconds(api.child.pid!);
        const r = await runLoad({ url: api.base, requests, connections: Number(flags.connections), duration: Number(flags.seconds) });
        const cpu = cpuSeconds(api.child.pid!) - cpu0;
        return { ...r, ok: r.total - r.non2xx - r.errors, cpuMs: (cpu * 1000) / Math.max(1, r.total) };
      }),
    );
    const oversold: unknown[] = await knex
      .withSchema('tenant_large')
      .table('person_events')
      .whereIn('event_id', events)
      .where('status', 'signed_on')
      .groupBy('event_id')
      .havingRaw('count(*) > 2')
      .select('event_id');
    const [a, b] = results;
    ratios.push(b.ok / Math.max(1, a.ok));
    for (const [i, r] of results.entries()) {
      say(
        `round ${round + 1} ${apis[i].name}: ${(r.ok / r.durationSeconds).toFixed(0)} sign-ons/s (${r.ok} ok of ${r.total}, non-2xx ${r.non2xx}, errors ${r.errors}), p50 ${r.p50} ms, p99 ${r.p99} ms, API CPU ${r.cpuMs.toFixed(2)} ms/request`,
      );
    }
    say(`round ${round + 1}: b/a ${ratios.at(-1)!.toFixed(2)}, oversold events ${oversold.length}`);
    // requests cut off at the end of the round are still running in the APIs: let them finish before the rows go
    await new Promise((r) => setTimeout(r, 5000));
  }
  say(`b/a per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
  await knex.withSchema('tenant_large').table('person_events').whereIn('event_id', events).delete();
});
