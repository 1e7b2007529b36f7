import type { PerGroup, Row } from './report';
import { runLoad, type LoadRequest, type LoadResult } from './load-runner';

export interface ShareCounts {
  waits: number;
  refusals: number;
}

export interface NoisyNeighbourPlan {
  url: string;
  /** GET /api/person spread over every tenant but the noisy one */
  others: LoadRequest[];
  othersConnections: number;
  /** the noisy tenant's heaviest list call, and its name in the table */
  flood: LoadRequest;
  floodName: string;
  floodConnections: number;
  duration: number;
  /** untimed seconds of the others' load before the first round */
  warmup: number;
  /** quiet + flooded pairs; the table reports their medians */
  rounds: number;
  /** how many of the others share the noisy tenant's connection group */
  othersInItsGroup: number;
  /** CPU cores per process group while `run` ran */
  cpuDuring<T>(run: () => Promise<T>): Promise<{ value: T; cpu: PerGroup }>;
  /** the API's db_tenant_share_* counters (GET /metrics) */
  shareCounts(): Promise<ShareCounts>;
  say(m: string): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failed = (r: LoadResult) => r.errors + r.non2xx;

/**
 * Item 4 of issue 18: one tenant floods its heaviest list call while the others read their
 * person; the others' latency and errors are compared with the same load without the flood.
 * Target: 0 errors for the others and their p99 at most 2x the quiet run's. A quiet and a
 * flooded run, back to back, make a round; the table gives the median of the rounds, so that a
 * burst of load from outside (the machine is shared) moves one round, not the verdict.
 */
export async function noisyNeighbour(plan: NoisyNeighbourPlan): Promise<Row[]> {
  const others = (duration = plan.duration) => runLoad({ url: plan.url, requests: plan.others, connections: plan.othersConnections, duration });
  // untimed first: the quiet run must not be a cold one (caches, connections, JIT)
  plan.say(`noisy neighbour: warming up ${plan.warmup} s`);
  await others(plan.warmup);
  const rounds: { quiet: LoadResult; quietCpu: PerGroup; theirs: LoadResult; noisyCpu: PerGroup; flood: LoadResult }[] = [];
  const before = await plan.shareCounts();
  for (let i = 0; i < plan.rounds; i++) {
    const quiet = await plan.cpuDuring(others);
    // The flood starts first and ends last, so every request of the others' run meets it.
    const noisy = await plan.cpuDuring(async () => {
      const flood = runLoad({ url: plan.url, requests: [plan.flood], connections: plan.floodConnections, duration: plan.duration + 2, timeout: 30 });
      await sleep(1000);
      const theirs = await others();
      return { theirs, flood: await flood };
    });
    rounds.push({ quiet: quiet.value, quietCpu: quiet.cpu, ...noisy.value, noisyCpu: noisy.cpu });
    plan.say(`noisy neighbour round ${i + 1}: others' p99 ${quiet.value.p99} ms quiet, ${noisy.value.theirs.p99} ms flooded`);
  }
  const after = await plan.shareCounts();
  const row = (scenario: string, runs: LoadResult[], cpus?: PerGroup[], note?: string): Row => ({
    scenario,
    rps: median(runs.map((r) => r.requestsPerSecond)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    errors: runs.reduce((n, r) => n + failed(r), 0),
    cpu: cpus ? meanOf(cpus) : undefined,
    note,
  });
  const ratios = rounds.map((r) => r.theirs.p99 / Math.max(1, r.quiet.p99));
  const ratio = median(ratios);
  const theirErrors = rounds.reduce((n, r) => n + failed(r.theirs), 0);
  const met = theirErrors === 0 && ratio <= 2;
  const label = `noisy neighbour: the others' GET /api/person (${plan.others.length} tenants, ${plan.othersConnections} connections; median of ${plan.rounds} rounds)`;
  const rows: Row[] = [
    row(
      `${label}, quiet`,
      rounds.map((r) => r.quiet),
      rounds.map((r) => r.quietCpu),
    ),
    row(
      `${label}, one tenant flooding`,
      rounds.map((r) => r.theirs),
      rounds.map((r) => r.noisyCpu),
      `p99 ${ratio.toFixed(2)}x quiet (rounds: ${ratios.map((x) => x.toFixed(2)).join(', ')}); target 0 errors and at most 2x: ${met ? 'met' : 'MISSED'}`,
    ),
    row(
      `noisy neighbour: the flooding tenant's ${plan.floodName}, ${plan.floodConnections} connections`,
      rounds.map((r) => r.flood),
      undefined,
      `errors are its own 503s; share waits ${after.waits - before.waits}, refusals ${after.refusals - before.refusals}; ${plan.othersInItsGroup} of the others share its connection group`,
    ),
  ];
  for (const r of rows)
    plan.say(`${r.scenario}: ${r.rps?.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}${r.note ? `; ${r.note}` : ''}`);
  return rows;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function meanOf(cpus: PerGroup[]): PerGroup {
  return Object.fromEntries(Object.keys(cpus[0]).map((k) => [k, cpus.reduce((s, c) => s + c[k as keyof PerGroup], 0) / cpus.length])) as PerGroup;
}

/** Reads the share counters from the API's Prometheus text. */
export function parseShareCounts(metricsText: string): ShareCounts {
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metricsText)?.[1] ?? NaN);
  return { waits: value('db_tenant_share_waits_total'), refusals: value('db_tenant_share_refusals_total') };
}
