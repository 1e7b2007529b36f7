import { describe, expect, it } from 'vitest';
import ExcelJS from 'exceljs';
import { parse as parseCsv } from 'csv-parse/sync';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../support/login';
import { client } from '../support/test-app';
import { acmeIds, csv, importAndWait, tenantDb, upload, useImportBed, waitForImport } from './import-support';

const bed = useImportBed();

const HEADER = ['user_name', 'firstname', 'lastname', 'email', 'mobile', 'extern_organisation_id', 'role_ids', 'extern_person_id'];
const BAD = { 12: 'email', 57: 'mobile', 150: 'role_ids' } as Record<number, string>;

/** 200 persons; the data rows at spreadsheet rows 12, 57 and 150 are bad (e-mail, mobile, unknown role). */
function staffList(roleIds: string): string {
  const rows: (string | number)[][] = [HEADER];
  for (let i = 1; i <= 200; i++) {
    const row = i + 1;
    rows.push([
      `imp${i}`,
      `First${i}`,
      `Last${i}`,
      BAD[row] === 'email' ? 'not-an-address' : `imp${i}@example.com`,
      BAD[row] === 'mobile' ? '12345' : `+47${String(90000000 + i)}`,
      i % 2 ? '1110' : '1120',
      BAD[row] === 'role_ids' ? '999999' : roleIds,
      `HR-${i}`,
    ]);
  }
  return csv(rows);
}

const personCount = () =>
  tenantDb(bed.t, bed.acme)
    .table('persons')
    .count({ n: '*' })
    .then((r: any) => Number(r[0].n));

describe('persons import', () => {
  let file = '';

  it('the template has every column and a sample row that imports (formula-looking cells escaped)', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const res = await admin
      .get('/api/imports/templates/persons')
      .buffer(true)
      .parse((r: any, cb: any) => {
        let s = '';
        r.on('data', (c: Buffer) => (s += c.toString('utf8')));
        r.on('end', () => cb(null, s));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    // read by a real CSV parser, as a spreadsheet or an HR system would
    const rows: string[][] = parseCsv(res.body as string, { bom: true });
    expect(rows).toHaveLength(2);
    const [header, sample] = rows;
    expect(header).toEqual(
      expect.arrayContaining(['user_name', 'email', 'mobile', 'organisation_id', 'extern_organisation_id', 'role_ids', 'extern_person_id']),
    );
    expect(sample).toHaveLength(header.length);
    expect(sample[header.indexOf('mobile')]).toBe("'+4790000012");
    // no cell a spreadsheet would run as a formula
    for (const cell of sample) expect(cell).not.toMatch(/^[=+\-@]/);
    const dry = await upload(admin, 'persons', res.body as string, { dryRun: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.imports[0]).toMatchObject({ state: 'dry_run', rows_total: 1, created: 1, failed: 0, failed_rows: [] });
  });

  it('a dry run reports exactly the 3 bad rows with the API texts and writes nothing', async () => {
    const ids = await acmeIds(bed);
    file = staffList(`${ids.roles['Welder']};${ids.roles['Safety representative']}`);
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const before = await personCount();
    const res = await upload(admin, 'persons', file, { dryRun: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const report = res.body.imports[0];
    expect(report).toMatchObject({ import_id: null, state: 'dry_run', rows_total: 200, created: 197, updated: 0, unchanged: 0, failed: 3 });
    expect(report.failed_rows).toEqual([
      { row: 12, column: 'email', errorcode: 420, message: 'malformed parameter person_data[email]: must be an e-mail address like name@example.com' },
      { row: 57, column: 'mobile', errorcode: 420, message: 'malformed parameter person_data[mobile]: must be + followed by 6 to 15 digits, e.g. +4790000012' },
      { row: 150, column: 'role_ids', errorcode: 404, message: 'role 999999 not found' },
    ]);
    expect(await personCount()).toBe(before);
  });

  it('a real import answers 202, shows progress, then the counts; the persons have their roles, audit entries and organisations', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const res = await upload(admin, 'persons', file);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const queued = res.body.imports[0];
    expect(queued).toMatchObject({ state: 'queued', type: 'persons', rows_total: 200, rows_done: 0, created_by: 'admin' });
    const { view, seen } = await waitForImport(admin, queued.import_id);
    expect(view).toMatchObject({ state: 'finished', rows_total: 200, rows_done: 200, created: 197, updated: 0, unchanged: 0, failed: 3, error: null });
    expect(view.failed_rows.map((f: any) => f.row)).toEqual([12, 57, 150]);
    // progress moves batch by batch (50 rows each here)
    for (const n of seen) expect(n % 50 === 0 || n === 200).toBe(true);
    const db = tenantDb(bed.t, bed.acme);
    const ids = await acmeIds(bed);
    const p7 = await db.table('persons').where({ user_name: 'imp7' }).first();
    expect(p7).toMatchObject({
      email: 'imp7@example.com',
      mobile: '+4790000007',
      extern_person_id: 'HR-7',
      organisation_id: ids.organisations['Operations North'],
    });
    const roles = await db.table('person_roles').where({ person_id: p7.id }).pluck('role_id');
    expect(roles.sort()).toEqual([ids.roles['Welder'], ids.roles['Safety representative']].sort());
    expect(await db.table('persons').where({ user_name: 'imp11' }).first()).toBeUndefined();
    const audit = await db.table('audit_log').whereIn('type', ['import.started', 'import.finished']).where({ subject: queued.import_id }).pluck('type');
    expect(audit.sort()).toEqual(['import.finished', 'import.started']);
    expect(await db.table('audit_log').where({ type: 'roles.changed', subject: 'imp7' }).first()).toBeTruthy();
  });

  it('the same file a second time changes nothing: all unchanged', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const before = await tenantDb(bed.t, bed.acme).table('persons').where({ user_name: 'imp7' }).first('updated_at');
    const { view } = await importAndWait(admin, 'persons', file);
    expect(view).toMatchObject({ state: 'finished', created: 0, updated: 0, unchanged: 197, failed: 3 });
    expect(await tenantDb(bed.t, bed.acme).table('persons').where({ user_name: 'imp7' }).first('updated_at')).toEqual(before);
  });

  it('changed columns update a person, matched by extern_person_id when the user name is new (a rename); a move of organisation', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const file2 = csv([
      ['user_name', 'extern_person_id', 'email', 'extern_organisation_id'],
      ['imp8', 'HR-8', 'new8@example.com', '1200'],
      ['imp9-renamed', 'HR-9', 'imp9@example.com', '1110'],
    ]);
    const dry = await upload(admin, 'persons', file2, { dryRun: true });
    expect(dry.body.imports[0]).toMatchObject({ created: 0, updated: 2, unchanged: 0, failed: 0 });
    const { view } = await importAndWait(admin, 'persons', file2);
    expect(view).toMatchObject({ created: 0, updated: 2, unchanged: 0, failed: 0 });
    const ids = await acmeIds(bed);
    const db = tenantDb(bed.t, bed.acme);
    expect(await db.table('persons').where({ user_name: 'imp8' }).first('email', 'organisation_id')).toEqual({
      email: 'new8@example.com',
      organisation_id: ids.organisations['Human Resources'],
    });
    expect(await db.table('persons').where({ extern_person_id: 'HR-9' }).first('user_name')).toEqual({ user_name: 'imp9-renamed' });
  });

  it('XLSX: numbers, dates and a formula cell (stored as its text, never evaluated)', async () => {
    const ids = await acmeIds(bed);
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Staff');
    ws.addRow(['user_name', 'firstname', 'lastname', 'birthdate', 'organisation_id', 'role_ids', 'notice', 'jobtitle']);
    ws.addRow([
      'xl1',
      'Excel',
      'One',
      new Date(Date.UTC(1980, 4, 17)),
      ids.organisations['Operations'],
      ids.roles['Welder'],
      { formula: 'HYPERLINK("http://evil.example","click")', result: 'click' },
      '@SUM(A1)',
    ]);
    ws.addRow([
      'xl2',
      'Excel',
      'Two',
      '1990-01-02',
      ids.organisations['Operations'],
      `${ids.roles['Welder']};${ids.roles['Office worker']}`,
      '+1+2',
      "'=not a formula",
    ]);
    const data = Buffer.from(await wb.xlsx.writeBuffer());
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const { view } = await importAndWait(admin, 'persons', data, 'staff.xlsx');
    expect(view).toMatchObject({ state: 'finished', file_format: 'xlsx', created: 2, failed: 0 });
    const db = tenantDb(bed.t, bed.acme);
    const xl1 = await db.table('persons').where({ user_name: 'xl1' }).first();
    expect(xl1).toMatchObject({ notice: '=HYPERLINK("http://evil.example","click")', jobtitle: '@SUM(A1)', organisation_id: ids.organisations['Operations'] });
    expect((await db.raw('select birthdate::text as b from ?? where user_name = ?', [db.ref('persons'), 'xl1'])).rows[0].b).toBe('1980-05-17');
    expect(await db.table('persons').where({ user_name: 'xl2' }).first('notice', 'jobtitle')).toEqual({ notice: '+1+2', jobtitle: '=not a formula' });
    // the same workbook again: unchanged
    const again = await importAndWait(admin, 'persons', data, 'staff.xlsx');
    expect(again.view).toMatchObject({ created: 0, updated: 0, unchanged: 2, failed: 0 });
  });

  it('a CSV formula cell is stored as text', async () => {
    const ids = await acmeIds(bed);
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const { view } = await importAndWait(
      admin,
      'persons',
      csv([
        ['user_name', 'jobtitle', 'organisation_id', 'role_ids'],
        ['formula1', '"=CMD|\' /C calc\'!A0"', ids.organisations['Operations'], ids.roles['Welder']],
      ]),
    );
    expect(view).toMatchObject({ created: 1, failed: 0 });
    expect(await tenantDb(bed.t, bed.acme).table('persons').where({ user_name: 'formula1' }).first('jobtitle')).toEqual({ jobtitle: "=CMD|' /C calc'!A0" });
  });

  it('a header without a matching column is a 419, an unknown column a 420; nothing is queued', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const a = await upload(admin, 'persons', csv([['firstname'], ['x']]));
    expect(a.body).toMatchObject({ errorcode: 419, message: 'missing column: a persons file needs user_name or extern_person_id' });
    const b = await upload(
      admin,
      'persons',
      csv([
        ['user_name', 'shoe_size'],
        ['x', '44'],
      ]),
    );
    expect(b.body).toMatchObject({ errorcode: 420, message: expect.stringContaining('unknown column "shoe_size"') });
    const c = await admin.post('/api/imports?type=people').attach('file', Buffer.from('user_name\nx\n'), 'p.csv');
    expect(c.body).toMatchObject({ errorcode: 420, message: expect.stringContaining('malformed parameter type') });
    const d = await admin.post('/api/imports?type=persons').send({ x: 1 });
    expect(d.body).toMatchObject({ errorcode: 419, message: 'missing parameter: file' });
  });

  it('an Idempotency-Key replays the first answer: one import, not two', async () => {
    const ids = await acmeIds(bed);
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const file = csv([
      ['user_name', 'organisation_id', 'role_ids'],
      ['idem1', ids.organisations['Operations'], ids.roles['Welder']],
    ]);
    const count = () =>
      tenantDb(bed.t, bed.acme)
        .table('imports')
        .count({ n: '*' })
        .then((r: any) => Number(r[0].n));
    const before = await count();
    const first = await upload(admin, 'persons', file).set('Idempotency-Key', 'import-once-1');
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const again = await upload(admin, 'persons', file).set('Idempotency-Key', 'import-once-1');
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.imports[0].import_id).toBe(first.body.imports[0].import_id);
    expect(await count()).toBe(before + 1);
    expect((await waitForImport(admin, first.body.imports[0].import_id)).view).toMatchObject({ created: 1 });
  });

  it('only superusers: a manager gets 403', async () => {
    const kari = await asAcme(bed.t, bed.acme.host, 'kari');
    expect((await upload(kari, 'persons', 'user_name\nx\n', { dryRun: true })).status).toBe(403);
    expect((await kari.get('/api/imports/templates/persons')).status).toBe(403);
    expect((await kari.get('/api/imports')).status).toBe(403);
  });

  it('another tenant cannot read an import (404), nor does it list it', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const list = await admin.get('/api/imports?limit=1');
    const id = list.body.imports[0].import_id;
    expect((await admin.get(`/api/imports/${id}`)).status).toBe(200);
    const globex = client(bed.t, bed.globex.host, await loginCookie(bed.t, bed.globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    const res = await globex.get(`/api/imports/${id}`);
    expect(res.body).toMatchObject({ valid: false, errorcode: 404, message: `import ${id} not found` });
    expect((await globex.get('/api/imports')).body.imports).toEqual([]);
  });
});
