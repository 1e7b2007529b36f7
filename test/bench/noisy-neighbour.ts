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
  /** untimed seconds of the others' load before the quiet run */
  warmup: number;
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
 * Target: 0 errors for the others and their p99 at most 2x the quiet run's.
 */
export async function noisyNeighbour(plan: NoisyNeighbourPlan): Promise<Row[]> {
  const others = (duration = plan.duration) => runLoad({ url: plan.url, requests: plan.others, connections: plan.othersConnections, duration });
  // untimed first: the quiet run must not be a cold one (caches, connections, JIT)
  plan.say(`noisy neighbour: warming up ${plan.warmup} s`);
  await others(plan.warmup);
  const quiet = await plan.cpuDuring(others);
  const before = await plan.shareCounts();
  // The flood starts first and ends last, so every request of the others' run meets it.
  const noisy = await plan.cpuDuring(async () => {
    const flood = runLoad({ url: plan.url, requests: [plan.flood], connections: plan.floodConnections, duration: plan.duration + 2, timeout: 30 });
    await sleep(1000);
    const theirs = await others();
    return { theirs, flood: await flood };
  });
  const after = await plan.shareCounts();
  const { theirs, flood } = noisy.value;
  const q = quiet.value;
  const ratio = theirs.p99 / Math.max(1, q.p99);
  const met = failed(theirs) === 0 && ratio <= 2;
  const label = `noisy neighbour: the others' GET /api/person (${plan.others.length} tenants, ${plan.othersConnections} connections)`;
  const rows: Row[] = [
    { scenario: `${label}, quiet`, rps: q.requestsPerSecond, p50: q.p50, p99: q.p99, errors: failed(q), cpu: quiet.cpu },
    {
      scenario: `${label}, one tenant flooding`,
      rps: theirs.requestsPerSecond,
      p50: theirs.p50,
      p99: theirs.p99,
      errors: failed(theirs),
      cpu: noisy.cpu,
      note: `p99 ${ratio.toFixed(2)}x quiet; target 0 errors and at most 2x: ${met ? 'met' : 'MISSED'}`,
    },
    {
      scenario: `noisy neighbour: the flooding tenant's ${plan.floodName}, ${plan.floodConnections} connections`,
      rps: flood.requestsPerSecond,
      p50: flood.p50,
      p99: flood.p99,
      errors: failed(flood),
      note: `errors are its own 503s; share waits ${after.waits - before.waits}, refusals ${after.refusals - before.refusals}; ${plan.othersInItsGroup} of the others share its connection group`,
    },
  ];
  for (const r of rows) plan.say(`${r.scenario}: ${r.rps?.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}${r.note ? `; ${r.note}` : ''}`);
  return rows;
}

/** Reads the share counters from the API's Prometheus text. */
export function parseShareCounts(metricsText: string): ShareCounts {
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metricsText)?.[1] ?? NaN);
  return { waits: value('db_tenant_share_waits_total'), refusals: value('db_tenant_share_refusals_total') };
}
