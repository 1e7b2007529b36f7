export interface Row {
  scenario: string;
  rps?: number;
  p50?: number;
  p99?: number;
  errors?: number;
  ratio?: number;
  /** CPU cores used while the scenario ran, per process group. */
  cpu?: { api: number; postgres: number; workers: number };
  seconds?: number;
  note?: string;
}

const f = (v: number | undefined, digits = 0) => (v === undefined ? '' : v.toFixed(digits));

/** The markdown table printed at the end and written next to the JSON. */
export function renderTable(rows: Row[], extra: Record<string, unknown>): string {
  const lines = [
    '| scenario | req/s | p50 ms | p99 ms | errors | ratio to ceiling | CPU API | CPU Postgres | CPU workers | seconds | note |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.scenario} | ${f(r.rps)} | ${f(r.p50)} | ${f(r.p99)} | ${r.errors ?? ''} | ${f(r.ratio, 2)} | ${f(r.cpu?.api, 2)} | ${f(r.cpu?.postgres, 2)} | ${f(r.cpu?.workers, 2)} | ${f(r.seconds, 1)} | ${r.note ?? ''} |`),
    '',
    Object.entries(extra)
      .map(([k, v]) => `${k}: ${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(1) : String(v)}`)
      .join(', '),
  ];
  return lines.join('\n');
}
