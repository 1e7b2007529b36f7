export const GROUPS = ['api', 'postgres', 'redis', 'workers'] as const;
export type Group = (typeof GROUPS)[number];
export type PerGroup = Record<Group, number>;

export interface Row {
  scenario: string;
  rps?: number;
  p50?: number;
  p99?: number;
  errors?: number;
  /** Requests per second over the ceiling's (bare express, no I/O). */
  ratio?: number;
  /** Requests per second over the hand-written reference's (same essential work as GET /api/person). */
  refRatio?: number;
  /** CPU cores used while the scenario ran, per process group ("api" is the server under test). */
  cpu?: PerGroup;
  /** CPU milliseconds per completed request, per process group. */
  cpuMs?: PerGroup;
  /** SQL statements executed per request (pg_stat_statements; only with --top-statements). */
  statements?: number;
  seconds?: number;
  note?: string;
  /**
   * The row sends one request again and again ("repeats one request"), or one per tenant or caller
   * ("repeats one request per tenant"): the product answers most of them from its caches, so such a
   * row measures the cache more than the work (issue 42); the day mix's rows draw their requests.
   */
  repeats?: string;
  /** When the load generator's first request went out (epoch ms; not printed). */
  startedAtMs?: number;
}

const f = (v: number | undefined, digits = 0) => (v === undefined ? '' : v.toFixed(digits));
/** A ratio: two decimals, or two significant digits below 0.01 (the competence level's, one call against thousands a second). */
const ratio = (v: number | undefined) => (v === undefined ? '' : v !== 0 && Math.abs(v) < 0.01 ? v.toPrecision(2) : v.toFixed(2));
const perGroup = (v: PerGroup | undefined, digits: number) => (v ? GROUPS.map((g) => f(v[g], digits)).join(' / ') : '');

/** The markdown table printed at the end and written next to the JSON. */
export function renderTable(rows: Row[], extra: Record<string, unknown>): string {
  const lines = [
    '| scenario | req/s | p50 ms | p99 ms | errors | ratio to ceiling | ratio to reference | CPU cores api / pg / redis / workers | CPU ms per request api / pg / redis / workers | SQL per request | seconds | note |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario}${r.repeats ? ` [${r.repeats}]` : ''} | ${f(r.rps)} | ${f(r.p50)} | ${f(r.p99)} | ${r.errors ?? ''} | ${ratio(r.ratio)} | ${ratio(r.refRatio)} | ${perGroup(r.cpu, 2)} | ${perGroup(r.cpuMs, 2)} | ${f(r.statements, 1)} | ${f(r.seconds, 1)} | ${r.note ?? ''} |`,
    ),
    '',
    Object.entries(extra)
      .map(([k, v]) => `${k}: ${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(1) : String(v)}`)
      .join(', '),
  ];
  return lines.join('\n');
}
