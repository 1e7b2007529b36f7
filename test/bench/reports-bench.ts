import http from 'node:http';
import { rssBytes } from './proc-stats';
import { GROUPS, type PerGroup, type Row } from './report';

/**
 * The reports' rows (issue 38), on the large tenant's root (10,000 persons, recursive), each call one
 * at a time and timed from the request to the answer's last byte:
 *  - the competence matrix as JSON: the first page (limit 100; every person is still sorted and
 *    counted) and every page in turn (100 pages of 100: the whole matrix as JSON);
 *  - the competence matrix as XLSX and as CSV (all 10,000 rows, streamed);
 *  - the compliance summary of the root (every unit below it, 10,000 persons evaluated).
 * Targets: ≤ 2 s JSON, ≤ 5 s XLSX, API RSS growth < 100 MB. The note has the API's RSS before the
 * row and its peak during it (sampled every 50 ms), and the answer's size.
 */
export interface ReportsBench {
  base: string;
  headers: Record<string, string>;
  rootOrg: number;
  rows: Row[];
  wanted(scenario: string): boolean;
  cpuWindow(): () => PerGroup;
  apiPid(): number;
  say(line: string): void;
}

export const MATRIX_JSON = 'GET /api/reports/competencematrix JSON (large root, recursive, first page of 100)';
export const MATRIX_ALL_PAGES = 'GET /api/reports/competencematrix JSON (large root, all 100 pages of 100 in turn)';
export const MATRIX_XLSX = 'GET /api/reports/competencematrix format=xlsx (large root, 10,000 persons)';
export const MATRIX_CSV = 'GET /api/reports/competencematrix format=csv (large root, 10,000 persons)';
export const COMPLIANCE = 'GET /api/reports/compliance (large root, every unit)';

/** The answer's status and size in bytes, read to its end. */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let bytes = 0;
        const head: Buffer[] = [];
        res.on('data', (d: Buffer) => {
          bytes += d.length;
          if (res.headers['content-type']?.includes('json')) head.push(d);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, text: Buffer.concat(head).toString() }));
      })
      .on('error', reject);
  });
}

async function timed(b: ReportsBench, scenario: string, calls: number, run: () => Promise<{ ok: boolean; bytes: number; extra?: string }>): Promise<void> {
  if (!b.wanted(scenario)) return;
  await run(); // untimed: plans and code warm
  const before = rssBytes(b.apiPid());
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rssBytes(b.apiPid()))), 50);
  const end = b.cpuWindow();
  const t0 = Date.now();
  const times: number[] = [];
  let errors = 0;
  let bytes = 0;
  let extra = '';
  try {
    for (let i = 0; i < calls; i++) {
      const s = Date.now();
      const r = await run();
      times.push(Date.now() - s);
      if (!r.ok) errors++;
      bytes = r.bytes;
      extra = r.extra ?? '';
    }
  } finally {
    clearInterval(timer);
  }
  const seconds = (Date.now() - t0) / 1000;
  const used = end();
  times.sort((a, c) => a - c);
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  b.rows.push({
    scenario,
    rps: calls / seconds,
    p50: times[Math.floor(times.length / 2)],
    p99: times[times.length - 1],
    errors,
    seconds,
    cpu: Object.fromEntries(GROUPS.map((g) => [g, used[g] / seconds])) as PerGroup,
    cpuMs: Object.fromEntries(GROUPS.map((g) => [g, (used[g] * 1000) / calls])) as PerGroup,
    note: `${calls} call(s) one at a time, p99 = slowest; API RSS ${mib(before)} before, peak ${mib(peak)} (growth ${mib(peak - before)}); answer ${(bytes / 1024).toFixed(0)} KiB${extra}`,
  });
  b.say(
    `${scenario}: median ${times[Math.floor(times.length / 2)]} ms, slowest ${times[times.length - 1]} ms, RSS growth ${mib(peak - before)}, errors ${errors}`,
  );
}

export async function reportScenarios(b: ReportsBench): Promise<void> {
  const matrix = `${b.base}/api/reports/competencematrix?organisation_id=${b.rootOrg}&recursive=1`;
  await timed(b, MATRIX_JSON, 5, async () => {
    const r = await get(`${matrix}&limit=100`, b.headers);
    return { ok: r.status === 200, bytes: r.bytes };
  });
  await timed(b, MATRIX_ALL_PAGES, 1, async () => {
    let ok = true;
    let bytes = 0;
    let persons = 0;
    for (let offset = 0; ; offset += 100) {
      const r = await get(`${matrix}&limit=100&offset=${offset}`, b.headers);
      ok &&= r.status === 200;
      bytes += r.bytes;
      const n = r.status === 200 ? JSON.parse(r.text).competencematrix.length : 0;
      persons += n;
      if (n < 100) break;
    }
    return { ok, bytes, extra: `; ${persons} persons` };
  });
  await timed(b, MATRIX_XLSX, 3, async () => {
    const r = await get(`${matrix}&format=xlsx`, b.headers);
    return { ok: r.status === 200, bytes: r.bytes };
  });
  await timed(b, MATRIX_CSV, 3, async () => {
    const r = await get(`${matrix}&format=csv`, b.headers);
    return { ok: r.status === 200, bytes: r.bytes };
  });
  await timed(b, COMPLIANCE, 3, async () => {
    const r = await get(`${b.base}/api/reports/compliance?organisation_id=${b.rootOrg}`, b.headers);
    return { ok: r.status === 200, bytes: r.bytes, extra: r.status === 200 ? `; ${JSON.parse(r.text).compliance.length} organisations` : '' };
  });
}
