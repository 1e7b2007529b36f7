import { afterAll, beforeAll, expect } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { startTestWorkers } from '../messaging/messages/delivery-peers';
import { tenantDb } from '../courses/events/events-support';

export { tenantDb };

type Client = { post(url: string): any; get(url: string): any };

export interface ImportBed {
  t: TestApp;
  acme: DemoTenant;
  globex: DemoTenant;
}

/** The app with acme and globex, and the job workers running in this process (on queues of their own). */
export function useImportBed(overrides: Record<string, string> = {}): ImportBed {
  const bed = {} as ImportBed;
  let workers: { stop(): Promise<void> } | undefined;
  beforeAll(async () => {
    bed.t = await createTestApp({ IMPORT_BATCH_ROWS: '50', ...overrides });
    bed.acme = await importDemoTenant(bed.t, 'acme');
    bed.globex = await importDemoTenant(bed.t, 'globex');
    workers = await startTestWorkers(bed.t.container, [bed.acme.tenantId, bed.globex.tenantId]);
  });
  afterAll(async () => {
    await workers?.stop();
    await bed.t?.close();
  });
  return bed;
}

/** POST /api/imports with the file as multipart part `file`. */
export function upload(c: Client, type: string, file: string | Buffer, opts: { dryRun?: boolean; name?: string; extra?: string } = {}) {
  const query = `type=${type}${opts.dryRun ? '&dry_run=1' : ''}${opts.extra ?? ''}`;
  return c.post(`/api/imports?${query}`).attach('file', Buffer.isBuffer(file) ? file : Buffer.from(file), opts.name ?? `${type}.csv`);
}

/** Polls the import until it has ended; answers it and every rows_done seen on the way. */
export async function waitForImport(c: Client, id: string, timeoutMs = 60_000): Promise<{ view: any; seen: number[] }> {
  const until = Date.now() + timeoutMs;
  const seen: number[] = [];
  for (;;) {
    const res = await c.get(`/api/imports/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const view = res.body.imports[0];
    if (seen[seen.length - 1] !== view.rows_done) seen.push(view.rows_done);
    if (view.state === 'finished' || view.state === 'failed') return { view, seen };
    if (Date.now() > until) throw new Error(`import ${id} did not end: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a real import and waits for its end. */
export async function importAndWait(c: Client, type: string, file: string | Buffer, name?: string) {
  const res = await upload(c, type, file, { name });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return waitForImport(c, res.body.imports[0].import_id);
}

/** Ids of acme's fixture rows by name. */
export async function acmeIds(bed: ImportBed) {
  const db = tenantDb(bed.t, bed.acme);
  const byName = async (table: string, column: string) =>
    Object.fromEntries((await db.table(table).select('id', column)).map((r: any) => [r[column], r.id as number]));
  return {
    organisations: await byName('organisations', 'name'),
    roles: await byName('roles', 'name'),
    competences: await byName('competences', 'title'),
  };
}

export const csv = (rows: (string | number)[][]) => rows.map((r) => r.join(',')).join('\n') + '\n';
