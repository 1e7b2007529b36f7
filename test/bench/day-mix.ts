import http from 'node:http';
import { DayActions, MIX, items, type Action, type DayTenantLogins, type Kind, type Req } from './day-actions';
import { prng } from './generate-tenants';

/**
 * The day mix's load generator and stale-answer checker (issue 42). Open loop: actions start at
 * `rate` a second whatever the answers' pace (an action due while `maxInFlight` are out is
 * counted as skipped, not queued), each on one of the API processes in turn; every acknowledged
 * write is read back at once from the OTHER process (its own keep-alive connections, so each
 * request reaches the process it names), with the list or count it changes, and an answer that
 * does not show the write's new state counts as stale. Used by day-bench.ts (in a process of its
 * own, day-worker.ts) and by the CI short form (test/platform/day-mix.test.ts).
 */
export interface DayMixConfig {
  /** one base URL per API process (two: each write's read-backs go to the other one) */
  bases: string[];
  tenants: DayTenantLogins[];
  /** actions started per second */
  rate: number;
  seconds: number;
  maxInFlight?: number;
  /** read every acknowledged write back from the other process (default true) */
  check?: boolean;
  /** only this class (the per-class cost runs) */
  only?: string;
  seed?: number;
  /** also give the p99 over the first this many seconds, and after them */
  leadingSeconds?: number;
  timeoutMs?: number;
}

export interface ClassStats {
  cls: string;
  kind: Kind;
  count: number;
  errors: number;
  p50: number;
  p99: number;
  rps: number;
}

export interface DayMixResult {
  seconds: number;
  offered: number;
  started: number;
  skipped: number;
  classes: ClassStats[];
  checks: { count: number; stale: number; errors: number; byWhat: Record<string, { count: number; stale: number }>; examples: string[] };
  /** p99 of every mix request over the leading seconds, and over the rest */
  leading?: { seconds: number; p99: number; restP99: number; count: number };
  /** a few failed answers, for the log */
  errorExamples: string[];
  /** the state the acknowledged writes left (DayActions.state()), for the next run */
  state: ReturnType<DayActions['state']>;
  /** tenants with a failed write, whose state is not known: read them again before the next run */
  unknownHosts: string[];
}

export interface Reply {
  status: number;
  body: any;
  ms: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Sends one request on one agent; never rejects (status 0 for a failure). */
export function sendOn(agent: http.Agent, base: string, req: Req, timeoutMs = 10_000): Promise<Reply> {
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  const headers: Record<string, string> = {
    ...req.headers,
    ...(body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {}),
  };
  const t0 = performance.now();
  return new Promise((resolve) => {
    const r = http.request(`${base}${req.path}`, { method: req.method, headers, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: any = text;
        if ((res.headers['content-type'] ?? '').includes('json')) {
          try {
            parsed = JSON.parse(text);
          } catch {
            /* kept as text */
          }
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, ms: performance.now() - t0 });
      });
      res.on('error', () => resolve({ status: 0, body: 'response error', ms: performance.now() - t0 }));
    });
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', (e) => resolve({ status: 0, body: String(e), ms: performance.now() - t0 }));
    r.end(body);
  });
}

export async function runDayMix(config: DayMixConfig): Promise<DayMixResult> {
  const check = config.check ?? true;
  const maxInFlight = config.maxInFlight ?? 256;
  const agents = config.bases.map(() => new http.Agent({ keepAlive: true, maxSockets: 64 }));
  const actions = new DayActions(config.tenants, prng(config.seed ?? 42));
  const lat = new Map<string, number[]>(MIX.map(([c]) => [c, []]));
  const errs = new Map<string, number>(MIX.map(([c]) => [c, 0]));
  const timed: [at: number, ms: number][] = [];
  const byWhat: Record<string, { count: number; stale: number }> = {};
  const checks = { count: 0, stale: 0, errors: 0, byWhat, examples: [] as string[] };
  const errorExamples: string[] = [];
  const retired: string[] = [];
  let inFlight = 0;
  let started = 0;
  let skipped = 0;
  let turn = 0;
  const t0 = performance.now();
  const pending = new Set<Promise<void>>();

  const one = async (a: Action) => {
    const p = turn++ % config.bases.length;
    const other = (p + 1) % config.bases.length;
    const r = await sendOn(agents[p], config.bases[p], a.req, config.timeoutMs);
    lat.get(a.cls)!.push(r.ms);
    timed.push([performance.now() - t0, r.ms]);
    if (r.status < 200 || r.status > 299) {
      // a write that failed (or timed out, and may have been done after all): its objects leave the
      // mix, so no later read-back is judged against a state the model does not know
      retired.push(...(a.locks ?? []));
      errs.set(a.cls, errs.get(a.cls)! + 1);
      if (errorExamples.length < 20) errorExamples.push(`${a.cls}: ${a.req.method} ${a.req.path} -> ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      return;
    }
    if (!a.after) return;
    // the model learns what the write did even when nothing is read back (each class alone): the next run starts from it
    const list = a.after(r.body);
    if (!check) return;
    // every read-back at once, on the other process, right after the answer
    await Promise.all(
      list.map(async (c) => {
        const back = await sendOn(agents[other], config.bases[other], c.req, config.timeoutMs);
        const w = (byWhat[`${a.cls}: ${c.what}`] ??= { count: 0, stale: 0 });
        w.count++;
        checks.count++;
        if (back.status < 200 || back.status > 299) {
          checks.errors++;
          if (checks.examples.length < 20)
            checks.examples.push(`read-back failed: ${a.req.method} ${a.req.path}; ${c.req.path} -> ${back.status} ${JSON.stringify(back.body).slice(0, 200)}`);
        } else if (!c.shows(back.status, back.body)) {
          w.stale++;
          checks.stale++;
          if (checks.examples.length < 20)
            checks.examples.push(
              `stale: ${a.req.method} ${a.req.headers.Host}${a.req.path} ${JSON.stringify(a.req.body ?? '')}; then ${c.req.path} -> ${summary(back.body)}` +
                (c.expected === undefined ? '' : `; the model expected ${JSON.stringify(c.expected)}`),
            );
        }
      }),
    );
  };

  const launch = () => {
    if (inFlight >= maxInFlight) {
      skipped++;
      return;
    }
    let a = actions.next(config.only);
    // a write whose object has a write in flight: another draw (its read-backs would race the other's)
    let free = !a.locks || actions.lock(a.locks);
    for (let i = 0; i < 5 && !free; i++) {
      a = actions.next(config.only);
      free = !a.locks || actions.lock(a.locks);
    }
    if (!free) {
      skipped++;
      return;
    }
    started++;
    inFlight++;
    const job = one(a).finally(() => {
      if (a.locks) actions.release(a.locks.filter((k) => !retired.includes(k)));
      inFlight--;
      pending.delete(job);
    });
    pending.add(job);
  };

  const endAt = config.seconds * 1000;
  while (performance.now() - t0 < endAt) {
    const due = Math.floor(((performance.now() - t0) / 1000) * config.rate) - (started + skipped);
    for (let i = 0; i < due; i++) launch();
    await new Promise((r) => setTimeout(r, 2));
  }
  const sendingSeconds = (performance.now() - t0) / 1000;
  await Promise.all([...pending]);
  for (const a of agents) a.destroy();

  const classes: ClassStats[] = MIX.map(([cls, kind]) => {
    const xs = lat.get(cls)!.sort((a, b) => a - b);
    return { cls, kind, count: xs.length, errors: errs.get(cls)!, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), rps: xs.length / sendingSeconds };
  }).filter((c) => c.count > 0);
  let leading: DayMixResult['leading'];
  if (config.leadingSeconds) {
    const L = config.leadingSeconds * 1000;
    const first = timed
      .filter(([at]) => at <= L)
      .map(([, ms]) => ms)
      .sort((a, b) => a - b);
    const rest = timed
      .filter(([at]) => at > L)
      .map(([, ms]) => ms)
      .sort((a, b) => a - b);
    leading = { seconds: config.leadingSeconds, p99: quantile(first, 0.99), restP99: quantile(rest, 0.99), count: first.length };
  }
  const unknownHosts = [...new Set(retired.map((k) => k.split('|')[0]))];
  return { seconds: sendingSeconds, offered: config.rate, started, skipped, classes, checks, leading, errorExamples, state: actions.state(), unknownHosts };
}

/** An answer in a line: a list as its items' ids (competence, person, event), anything else as its start. */
function summary(body: any): string {
  const list = items(body);
  if (list.length === 0 || typeof list[0] !== 'object') return JSON.stringify(body).slice(0, 300);
  const ids = list.map((x) => x.competence_id ?? x.user_name ?? x.person_id ?? x.event_id ?? x.id);
  return `${list.length} items: ${JSON.stringify(ids)}${list[0].role_ids ? `, role_ids of the first ${JSON.stringify(list[0].role_ids)}` : ''}`;
}
