import http from 'node:http';
import type { Knex } from 'knex';
import type { CountingSink } from './counting-sink';
import type { Load } from './load-runner';
import { GROUPS, type PerGroup, type Row } from './report';

/**
 * The calendar's rows (issue 35), on the large tenant after the other scenarios:
 *  - POST /api/events: course events (no location, so no clash to look for) created for --duration s;
 *  - a cancel of an event with 100 participants, end to end: each of `rounds` events gets 100
 *    signed-on persons (SQL, untimed), then PUT /api/events/[id]/cancel is timed from the request
 *    until the bench's SMTP sink has every notice (each participant's and, per participant, a copy
 *    to their nearest manager: the bench makes one person manager of the root unit, so 200 mails a
 *    cancel). Its rate is notices delivered per second, so its ratio to the reference compares
 *    like the messages' end-to-end row.
 */
export const EVENT_CREATION = 'POST /api/events (course event, large tenant)';
export const CANCEL = 'cancel with 100 participants, notices end to end to the SMTP sink';

export interface CalendarBench {
  base: string;
  headers: Record<string, string>;
  knex: Knex;
  smtp: CountingSink;
  rows: Row[];
  rounds: number;
  wanted(scenario: string): boolean;
  measure(scenario: string, load: Load): Promise<Row | null>;
  /** Starts a CPU window over the four groups; the function returned ends it (CPU seconds per group). */
  cpuWindow(): () => PerGroup;
  say(line: string): void;
}

const SCHEMA = 'tenant_large';
const PARTICIPANTS = 100;

function put(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', headers: { ...headers, 'Content-Length': '0' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function calendarScenarios(b: CalendarBench): Promise<void> {
  const db = () => b.knex.withSchema(SCHEMA);
  const course: number = (await db().table('competences').where({ type: 'course' }).orderBy('id').first('id')).id;
  if (b.wanted(EVENT_CREATION)) {
    // far from the generated events (2026-2029): the first page of upcoming events stays the same
    const requests = Array.from({ length: 50 }, (_, i) => ({
      method: 'POST',
      path: '/api/events',
      headers: { ...b.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        event_data: {
          competence_id: course,
          title: `Bench event ${i}`,
          startdate: `2040-0${1 + (i % 9)}-1${i % 10}T09:00`,
          enddate: `2040-0${1 + (i % 9)}-1${i % 10}T15:00`,
          max_participants: 20,
        },
      }),
    }));
    await b.measure(EVENT_CREATION, { url: b.base, requests });
  }
  if (!b.wanted(CANCEL)) return;
  // a manager at the root: every participant's nearest manager, so each notice has its copy
  const root: number = (await db().table('organisations').whereNull('parent_id').first('id')).id;
  const manager: number = (await db().table('persons').where({ user_name: 'p9999' }).first('id')).id;
  await db().table('organisation_managers').insert({ organisation_id: root, person_id: manager }).onConflict(['organisation_id', 'person_id']).ignore();
  const seconds: number[] = [];
  const latencies: number[] = [];
  let written = 0;
  let delivered = 0;
  let used: PerGroup = Object.fromEntries(GROUPS.map((g) => [g, 0])) as PerGroup;
  let wall = 0;
  for (let round = 0; round < b.rounds; round++) {
    const [{ id }] = await db()
      .table('events')
      .insert({
        competence_id: course,
        title: `Bench cancel ${round} ${Date.now()}`,
        starts_at: '2041-01-10T08:00:00Z',
        ends_at: '2041-01-10T15:00:00Z',
        max_participants: PARTICIPANTS,
      })
      .returning('id');
    const names = Array.from({ length: PARTICIPANTS }, (_, i) => `p${1 + ((round * PARTICIPANTS + i) % 9990)}`);
    await b.knex.raw(
      `insert into ${SCHEMA}.person_events (person_id, event_id, status) select id, ?, 'signed_on' from ${SCHEMA}.persons where user_name = any(?)`,
      [id, names],
    );
    const before = b.smtp.count;
    const endCpu = b.cpuWindow();
    const t0 = Date.now();
    const res = await put(`${b.base}/api/events/${id}/cancel`, b.headers);
    latencies.push(Date.now() - t0);
    if (res.status !== 200) throw new Error(`cancel of event ${id}: ${res.status} ${res.text}`);
    const notices = Number(/(\d+) notice\(s\) written/.exec(JSON.parse(res.text).message)?.[1] ?? 0);
    const until = Date.now() + 180_000;
    while (b.smtp.count - before < notices && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const cpu = endCpu();
    used = Object.fromEntries(GROUPS.map((g) => [g, used[g] + cpu[g]])) as PerGroup;
    const s = (b.smtp.lastMailAt - t0) / 1000;
    seconds.push(s);
    wall += s;
    written += notices;
    delivered += b.smtp.count - before;
    b.say(`cancel ${round + 1}/${b.rounds}: ${notices} notices, request ${latencies.at(-1)} ms, last mail after ${s.toFixed(2)} s`);
  }
  const perNotice = Object.fromEntries(GROUPS.map((g) => [g, (used[g] * 1000) / Math.max(1, delivered)])) as PerGroup;
  b.rows.push({
    scenario: CANCEL,
    rps: delivered / wall,
    p50: median(latencies),
    p99: Math.max(...latencies),
    errors: written - delivered,
    cpu: Object.fromEntries(GROUPS.map((g) => [g, used[g] / wall])) as PerGroup,
    cpuMs: perNotice,
    seconds: median(seconds),
    note:
      `${b.rounds} cancels of ${PARTICIPANTS} participants each (seconds: median from the request to the last mail; req/s: notices per second; ` +
      `p50/p99: the cancel request alone, median and max); ${delivered} of ${written} notices delivered (participants and managers' copies); ` +
      `CPU ms per notice ${GROUPS.reduce((sum, g) => sum + perNotice[g], 0).toFixed(2)} over the four groups`,
  });
}
