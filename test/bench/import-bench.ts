import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { rssBytes } from './proc-stats';
import { GROUPS, type PerGroup, type Row } from './report';

/**
 * The bulk import's rows (issue 36), on the large tenant after the other scenarios, each timed
 * from the POST until the import has ended (a dry run: until its answer):
 *  - a 10,000-row persons CSV (new persons imp0..imp9999 in the root unit, one role): dry run, the
 *    real import, and the same file again (all unchanged);
 *  - a 50,000-row registrations CSV (persons p0..p9999 x 5 competences of course, ecourse, formal and
 *    skill type, dates in 2031): the real import and the same file again.
 * The rate is rows per second; CPU per row over the four groups; the note has the peak RSS of the
 * API process (it takes the upload and answers dry runs) and of the worker process (it runs the job),
 * sampled every 100 ms during the row, and how many progress steps GET /api/imports/[id] showed.
 */
export const IMPORT_PERSONS = 'import 10,000 persons (CSV)';
export const IMPORT_REGISTRATIONS = 'import 50,000 registrations (CSV)';

export interface ImportBench {
  base: string;
  headers: Record<string, string>;
  knex: Knex;
  rows: Row[];
  wanted(scenario: string): boolean;
  cpuWindow(): () => PerGroup;
  apiPid(): number;
  workerPids(): number[];
  say(line: string): void;
}

const SCHEMA = 'tenant_large';

function request(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, ...(body ? { 'Content-Length': String(body.length) } : {}) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function multipart(file: string, name: string): { body: Buffer; type: string } {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head), Buffer.from(file), Buffer.from(`\r\n--${boundary}--\r\n`)]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

/** Peak RSS of the API and of the worker processes while `run` runs. */
async function withPeaks<T>(b: ImportBench, run: () => Promise<T>): Promise<{ value: T; api: number; workers: number }> {
  let api = 0;
  let workers = 0;
  const timer = setInterval(() => {
    api = Math.max(api, rssBytes(b.apiPid()));
    workers = Math.max(
      workers,
      b.workerPids().reduce((s, p) => s + rssBytes(p), 0),
    );
  }, 100);
  try {
    return { value: await run(), api, workers };
  } finally {
    clearInterval(timer);
  }
}

async function runImport(b: ImportBench, type: string, file: string, dryRun: boolean): Promise<{ view: any; steps: number }> {
  const { body, type: contentType } = multipart(file, `${type}.csv`);
  const res = await request(`${b.base}/api/imports?type=${type}${dryRun ? '&dry_run=1' : ''}`, 'POST', { ...b.headers, 'Content-Type': contentType }, body);
  if (res.status !== (dryRun ? 200 : 202)) throw new Error(`POST /api/imports ${type}: ${res.status} ${JSON.stringify(res.json)}`);
  let view = res.json.imports[0];
  if (dryRun) return { view, steps: 0 };
  const seen = new Set<number>();
  const until = Date.now() + 1_800_000;
  while (view.state !== 'finished' && view.state !== 'failed') {
    if (Date.now() > until) throw new Error(`import ${view.import_id} did not end`);
    await new Promise((r) => setTimeout(r, 250));
    view = (await request(`${b.base}/api/imports/${view.import_id}`, 'GET', b.headers)).json.imports[0];
    seen.add(view.rows_done);
  }
  if (view.state !== 'finished') throw new Error(`import ${view.import_id} failed: ${view.error}`);
  return { view, steps: seen.size };
}

async function timed(b: ImportBench, scenario: string, type: string, file: string, rowCount: number, dryRun: boolean): Promise<void> {
  if (!b.wanted(scenario)) return;
  const end = b.cpuWindow();
  const t0 = Date.now();
  const { value, api, workers } = await withPeaks(b, () => runImport(b, type, file, dryRun));
  const seconds = (Date.now() - t0) / 1000;
  const used = end();
  const v = value.view;
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  const cpuMs = Object.fromEntries(GROUPS.map((g) => [g, (used[g] * 1000) / rowCount])) as PerGroup;
  b.rows.push({
    scenario,
    rps: rowCount / seconds,
    seconds,
    cpu: Object.fromEntries(GROUPS.map((g) => [g, used[g] / seconds])) as PerGroup,
    cpuMs,
    errors: v.failed,
    note:
      `rows/s; created ${v.created}, updated ${v.updated}, unchanged ${v.unchanged}, failed ${v.failed}; peak RSS api ${mib(api)}, workers ${mib(workers)}` +
      (dryRun ? '' : `; ${value.steps} progress steps seen`) +
      `; CPU ms per row ${GROUPS.reduce((s, g) => s + cpuMs[g], 0).toFixed(2)} over the four groups`,
  });
  b.say(`${scenario}: ${(rowCount / seconds).toFixed(0)} rows/s, ${seconds.toFixed(1)} s, peak RSS api ${mib(api)} workers ${mib(workers)}`);
}

export async function importScenarios(b: ImportBench): Promise<void> {
  const db = () => b.knex.withSchema(SCHEMA);
  if (b.wanted(IMPORT_PERSONS)) {
    const root: number = (await db().table('organisations').whereNull('parent_id').first('id')).id;
    const role: number = (await db().table('roles').orderBy('id').first('id')).id;
    // a run on kept data (--data) meets the persons of the last one: the first run creates them again
    await db()
      .table('persons')
      .where('user_name', 'like', 'imp%')
      .delete()
      .catch((err: Error) => b.say(`earlier imported persons not removed: ${err.message}`));
    const lines = ['user_name,firstname,lastname,email,mobile,extern_person_id,organisation_id,role_ids'];
    for (let i = 0; i < 10_000; i++) lines.push(`imp${i},Imported${i},Person${i},imp${i}@import.example,+47${50000000 + i},EXT-${i},${root},${role}`);
    const file = `${lines.join('\n')}\n`;
    await timed(b, `${IMPORT_PERSONS}, dry run`, 'persons', file, 10_000, true);
    await timed(b, IMPORT_PERSONS, 'persons', file, 10_000, false);
    await timed(b, `${IMPORT_PERSONS}, same file again (all unchanged)`, 'persons', file, 10_000, false);
  }
  if (b.wanted(IMPORT_REGISTRATIONS)) {
    const titles = ['Competence 10', 'Competence 11', 'Competence 12', 'Competence 13', 'Competence 15'];
    const competences: number[] = await db().table('competences').whereIn('title', titles).orderBy('id').pluck('id');
    const persons: number[] = await db().table('persons').where('user_name', 'like', 'p%').pluck('id');
    await db().table('person_competences').whereIn('competence_id', competences).where('date', '>=', '2031-01-01').delete();
    if (!persons.length) return;
    const lines = ['user_name,competence_id,date,passed,comments'];
    for (let i = 0; i < 10_000; i++) competences.forEach((c, k) => lines.push(`p${i},${c},2031-0${1 + k}-1${i % 10},100,imported`));
    const file = `${lines.join('\n')}\n`;
    await timed(b, IMPORT_REGISTRATIONS, 'registrations', file, lines.length - 1, false);
    await timed(b, `${IMPORT_REGISTRATIONS}, same file again (all unchanged)`, 'registrations', file, lines.length - 1, false);
  }
}
