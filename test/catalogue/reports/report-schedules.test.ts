import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { createTestApp, importDemoTenant, client, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { tenantDb } from '../../courses/events/events-support';
import { startSmtpSink, startTestWorkers, waitFor, type ReceivedMail } from '../../messaging/messages/delivery-peers';
import { CLOCK, instantIn } from '../../../src/platform/time/tenant-clock';
import { QueueRegistry } from '../../../src/platform/queue/queue-registry';
import { startWorkers } from '../../../src/platform/queue/worker-runtime';
import { MailSender, tenantsWithReportSchedules } from '../../../src/messaging';
import { CLUSTERS } from '../../../src/platform/clusters/clusters';
import { ReportScheduleScan, REPORT_SCHEDULE_SCAN_OPTIONS } from '../../../src/flows/reports/report-schedule-scan';
import type { TenantDb } from '../../../src/platform/tenant-scope/tenant-db';

// The real job scheduler (a scan every second), the real workers and an SMTP sink; the app's clock is moved.
const ZONE = 'Europe/Oslo';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const at = (local: string) => instantIn(ZONE, local)!;

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let db: TenantDb;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let workers: { stop(): Promise<void> } | undefined;
let admin: Awaited<ReturnType<typeof asAcme>>;
let kari: Awaited<ReturnType<typeof asAcme>>;
let org: Record<string, number>;
const clock = { now: at('2026-12-02T10:00') }; // a Wednesday

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await createTestApp({ SMTP_URL: smtp.url, REPORT_SCHEDULE_SCAN_INTERVAL_SECONDS: '1' });
  t.container.register(CLOCK, { useValue: { now: () => clock.now } });
  [acme, globex] = await Promise.all([
    importDemoTenant(t, 'acme', (doc) => {
      doc.config = { ...doc.config, 'tenant.timezone': ZONE };
    }),
    importDemoTenant(t, 'globex'),
  ]);
  db = tenantDb(t, acme);
  org = Object.fromEntries((await db.table('organisations').select('id', 'name')).map((o: any) => [o.name, o.id]));
  admin = await asAcme(t, acme.host, 'admin');
  kari = await asAcme(t, acme.host, 'kari');
  workers = await startTestWorkers(t.container, [acme.tenantId]);
  t.container.register(REPORT_SCHEDULE_SCAN_OPTIONS, { useValue: { onlyTenants: [acme.tenantId] } });
});

afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await smtp?.stop();
});

const completedScans = async () => (await t.container.resolve(QueueRegistry).get('scheduled').getJobCounts('completed')).completed ?? 0;
const moreScans = async (n: number) => {
  const after = await completedScans();
  await waitFor(`${n} more scans`, async () => (await completedScans()) >= after + n);
};
const mailsTo = (address: string, subject: RegExp) => smtp.mails.filter((m) => m.rcptTo.includes(address) && subject.test(m.headers.subject ?? ''));
const runsOf = async (id: number) =>
  db.table('report_schedule_runs').where({ schedule_id: id }).orderBy('created_at').select('period_key', 'outcome', 'message_ids');

async function attachment(mail: ReceivedMail) {
  const parsed = await simpleParser(mail.raw);
  expect(parsed.attachments).toHaveLength(1);
  return parsed.attachments[0];
}

async function create(as: typeof admin, data: Record<string, unknown>) {
  return as.post('/api/reports/schedules').send({ schedule_data: data });
}

const weeklyMatrix = () => ({
  report: 'competencematrix',
  organisation_id: org['Operations'],
  recursive: 1,
  include_optional: 1,
  format: 'xlsx',
  frequency: 'weekly',
  weekday: 4,
  time: '08:00',
  recipients: 'managers',
});

describe('a weekly schedule through the real workers and SMTP sink', () => {
  let id: number;

  it('is created (201) and sends nothing before its time', async () => {
    const r = await create(admin, weeklyMatrix());
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const s = r.body.schedules[0];
    expect(s).toMatchObject({
      report: 'competencematrix',
      frequency: 'weekly',
      weekday: 4,
      time: '08:00',
      recipients: ['managers'],
      owner_user_name: 'admin',
      time_zone: ZONE,
    });
    expect(s.next_run_at).toBe(at('2026-12-03T08:00').toISOString());
    id = s.schedule_id;
    await moreScans(2);
    expect(await runsOf(id)).toEqual([]);
    const audit = (await admin.get('/api/auditlog?type=report_schedule.created')).body.auditlog;
    expect(audit[0]).toMatchObject({ actor: 'admin', subject: String(id) });
  });

  it('in its period: exactly one mail to the manager with the XLSX that reads back as the matrix; later scans send nothing', async () => {
    clock.now = at('2026-12-03T08:30');
    const subject = /^Competence matrix of Operations, 2026-12-03$/;
    const mail = await waitFor('the report mail', () => mailsTo('kari@acme.example', subject)[0]);
    const file = await attachment(mail);
    expect(file.filename).toBe('competencematrix-2026-12-03.xlsx');
    expect(file.contentType).toBe(XLSX);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(file.content as any);
    const sheet = book.worksheets[0];
    const json = (await admin.get(`/api/reports/competencematrix?organisation_id=${org['Operations']}&recursive=1&include_optional=1&limit=100`)).body
      .competencematrix;
    expect(sheet.rowCount).toBe(json.length + 1);
    const names = json.map((r: any) => r.user_name);
    expect(Array.from({ length: json.length }, (_, i) => sheet.getRow(i + 2).getCell(1).value)).toEqual(names);
    const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
    json.forEach((r: any, i: number) => {
      const row = sheet.getRow(i + 2);
      for (const c of r.competences) {
        const col = header.findIndex((h) => h.endsWith(`[${c.competence_id}]`)) + 1;
        const v = row.getCell(col).value;
        if (c.status !== 'missing' && c.valid_until) expect((v as Date).toISOString().slice(0, 10)).toBe(c.valid_until);
        else expect(v).toBe(c.status);
      }
    });
    await moreScans(3);
    expect(mailsTo('kari@acme.example', subject)).toHaveLength(1);
    expect(await runsOf(id)).toEqual([{ period_key: 'weekly:2026-11-30', outcome: 'sent', message_ids: [expect.any(Number)] }]);
    // a scan of one more "worker process" in the same period finds it sent
    expect(await t.container.resolve(ReportScheduleScan).run()).toMatchObject({ sent: 0 });
  });

  it('two scans at once in the next period (two worker processes): one sends, the other finds the period taken', async () => {
    await workers!.stop();
    clock.now = at('2026-12-10T09:00');
    const scan = t.container.resolve(ReportScheduleScan);
    const [a, b] = await Promise.all([scan.run(), scan.run()]);
    expect(a.sent + b.sent).toBe(1);
    expect((await runsOf(id)).map((r: any) => r.period_key)).toEqual(['weekly:2026-11-30', 'weekly:2026-12-07']);
    workers = await startWorkers(t.container);
    const subject = /^Competence matrix of Operations, 2026-12-10$/;
    await waitFor("the second week's mail", () => mailsTo('kari@acme.example', subject)[0]);
    await moreScans(2);
    expect(mailsTo('kari@acme.example', subject)).toHaveLength(1);
  });

  it('a worker restart between the claim and the send still sends exactly one mail', async () => {
    t.container.resolve(MailSender).close(); // its idle pooled connection would hold the sink's close for 30 s
    await smtp.stop(); // the claim and the outbox row commit; the send cannot happen
    clock.now = at('2026-12-17T08:00');
    await waitFor('the third week claimed', async () => (await runsOf(id)).length === 3);
    const subject = /^Competence matrix of Operations, 2026-12-17$/;
    expect(mailsTo('kari@acme.example', subject)).toHaveLength(0);
    await workers!.stop(); // the worker goes down with the mail unsent
    await smtp.start();
    workers = await startWorkers(t.container); // and comes back (same queues, same outbox)
    await waitFor("the third week's mail after the restart", () => mailsTo('kari@acme.example', subject)[0], 60_000);
    await moreScans(3);
    expect(mailsTo('kari@acme.example', subject)).toHaveLength(1);
    expect(await runsOf(id)).toHaveLength(3);
  });

  it('run-now (202) sends one more mail at once; the periods are untouched', async () => {
    const before = mailsTo('kari@acme.example', /^Competence matrix of Operations/).length;
    const r = await admin.post(`/api/reports/schedules/${id}/run`);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    await waitFor('the run-now mail', () => mailsTo('kari@acme.example', /^Competence matrix of Operations/).length > before || null);
    await moreScans(2);
    expect(mailsTo('kari@acme.example', /^Competence matrix of Operations/)).toHaveLength(before + 1);
    const runs = await runsOf(id);
    expect(runs).toHaveLength(4);
    expect(runs[3].period_key).toMatch(/^now:/);
    const audit = (await admin.get('/api/auditlog?type=report_schedule.run')).body.auditlog;
    expect(audit[0]).toMatchObject({ actor: 'admin', subject: String(id), details: { outcome: 'sent', recipients: 1 } });
  });
});

describe('a monthly CSV compliance summary', () => {
  it('on the last day of the month: one mail per recipient with a CSV that parses back to the summary', async () => {
    clock.now = at('2027-01-05T12:00');
    const r = await create(admin, {
      report: 'compliance',
      organisation_id: org['Acme Industries'],
      format: 'csv',
      frequency: 'monthly',
      day: 'last',
      time: '23:30',
      recipients: 'admin,kari',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.schedules[0]).toMatchObject({ day: 'last', next_run_at: at('2027-01-31T23:30').toISOString() });
    clock.now = at('2027-01-31T23:45');
    const subject = /^Compliance summary of Acme Industries, 2027-01-31$/;
    const mails = await waitFor('two mails', () =>
      mailsTo('admin@acme.example', subject).length && mailsTo('kari@acme.example', subject).length ? true : null,
    );
    expect(mails).toBe(true);
    const file = await attachment(mailsTo('admin@acme.example', subject)[0]);
    expect(file.filename).toBe('compliance-2027-01-31.csv');
    const [head, ...lines] = parse(file.content, { bom: true });
    expect(head.slice(0, 4)).toEqual(['organisation_id', 'organisation_name', 'parent_id', 'date']);
    const json = (await admin.get(`/api/reports/compliance?organisation_id=${org['Acme Industries']}`)).body.compliance;
    const totals = lines.filter((l) => l[4] === '');
    expect(totals.map((l) => [Number(l[0]), Number(l[6]), Number(l[8]), Number(l[13])])).toEqual(
      json.map((o: any) => [o.organisation_id, o.persons, o.required, o.percent_compliant]),
    );
    await moreScans(2);
    expect(mailsTo('admin@acme.example', subject)).toHaveLength(1);
    expect(mailsTo('kari@acme.example', subject)).toHaveLength(1);
  });
});

describe('who may, and what is checked', () => {
  it('419 and 420 name the schedule_data parameter', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...weeklyMatrix(), report: undefined }, 419, 'schedule_data[report]'],
      [{ ...weeklyMatrix(), report: 'payroll' }, 420, 'schedule_data[report]'],
      [{ ...weeklyMatrix(), weekday: undefined }, 419, 'schedule_data[weekday]'],
      [{ ...weeklyMatrix(), weekday: 8 }, 420, 'schedule_data[weekday]'],
      [{ ...weeklyMatrix(), frequency: 'monthly', weekday: undefined, day: 29 }, 420, 'schedule_data[day]'],
      [{ ...weeklyMatrix(), frequency: 'monthly', weekday: undefined }, 419, 'schedule_data[day]'],
      [{ ...weeklyMatrix(), time: '24:00' }, 420, 'schedule_data[time]'],
      [{ ...weeklyMatrix(), format: 'pdf' }, 420, 'schedule_data[format]'],
      [{ ...weeklyMatrix(), recipients: undefined }, 419, 'schedule_data[recipients]'],
      [{ ...weeklyMatrix(), recipients: 'nosuchperson' }, 420, 'schedule_data[recipients]'],
      [{ ...weeklyMatrix(), organisation_id: undefined }, 419, 'schedule_data[organisation_id]'],
    ];
    for (const [data, code, name] of cases) {
      const r = await create(admin, data);
      expect([r.body.errorcode, r.body.message], JSON.stringify(data)).toEqual([code, expect.stringContaining(name)]);
    }
  });

  it('a manager schedules for the organisations they manage (201), not for others (403); sees and changes only those', async () => {
    const outside = await create(kari, { ...weeklyMatrix(), organisation_id: org['Acme Industries'] });
    expect(outside.status).toBe(403);
    const mine = await create(kari, { ...weeklyMatrix(), recipients: 'kari,ola' });
    expect(mine.status, JSON.stringify(mine.body)).toBe(201);
    const rootSchedule = (await create(admin, { ...weeklyMatrix(), organisation_id: org['Acme Industries'], recipients: 'admin' })).body.schedules[0];
    expect((await kari.get(`/api/reports/schedules/${rootSchedule.schedule_id}`)).status).toBe(403);
    expect((await kari.get('/api/reports/schedules')).body.schedules.every((s: any) => s.organisation_id === org['Operations'])).toBe(true);
    const moved = await kari
      .put(`/api/reports/schedules/${mine.body.schedules[0].schedule_id}`)
      .send({ schedule_data: { organisation_id: org['Acme Industries'] } });
    expect(moved.status).toBe(403);
    const ola = await asAcme(t, acme.host, 'ola');
    expect((await create(ola, weeklyMatrix())).status).toBe(403);
  });

  it("the owner's rights are checked again at the run: a manager no longer managing it gets nothing mailed (403 on run-now)", async () => {
    const r = await create(kari, { ...weeklyMatrix(), format: 'csv', recipients: 'kari' });
    const id = r.body.schedules[0].schedule_id;
    const kariId = (await db.table('persons').where({ user_name: 'kari' }).first('id')).id;
    const removed = await db.table('organisation_managers').where({ person_id: kariId }).del().returning('*');
    try {
      const run = await admin.post(`/api/reports/schedules/${id}/run`);
      expect(run.status).toBe(403);
      expect(run.body.message).toMatch(/was not sent/);
      expect((await runsOf(id))[0]).toMatchObject({ outcome: 'refused', message_ids: [] });
    } finally {
      await db.table('organisation_managers').insert(removed);
    }
  });

  it("PUT changes fields, DELETE removes (both audited); another tenant's schedule id is 404", async () => {
    const r = await create(admin, { ...weeklyMatrix(), recipients: 'admin' });
    const id = r.body.schedules[0].schedule_id;
    const put = await admin.put(`/api/reports/schedules/${id}`).send({ schedule_data: { frequency: 'monthly', day: 1, time: '06:15' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.schedules[0]).toMatchObject({ frequency: 'monthly', day: 1, time: '06:15', format: 'xlsx', recipients: ['admin'] });
    expect(put.body.schedules[0].weekday).toBeUndefined();
    const globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    expect((await globexAdmin.get(`/api/reports/schedules/${id}`)).status).toBe(404);
    expect((await globexAdmin.delete(`/api/reports/schedules/${id}`)).status).toBe(404);
    expect((await globexAdmin.post(`/api/reports/schedules/${id}/run`)).status).toBe(404);
    expect((await admin.delete(`/api/reports/schedules/${id}`)).status).toBe(200);
    expect((await admin.get(`/api/reports/schedules/${id}`)).status).toBe(404);
    const audit = (await admin.get('/api/auditlog?type=report_schedule.updated,report_schedule.deleted&limit=100')).body.auditlog;
    expect(audit.filter((a: any) => a.subject === String(id)).map((a: any) => a.type)).toEqual(['report_schedule.deleted', 'report_schedule.updated']);
  });

  it('at most reports.max_schedules per tenant (409)', async () => {
    const count = (await admin.get('/api/reports/schedules')).body.schedules.length;
    expect((await admin.put('/api/configitems/reports.max_schedules').send({ value: count })).status).toBe(200);
    const r = await create(admin, weeklyMatrix());
    expect(r.status).toBe(409);
    expect(r.body.message).toMatch(/reports\.max_schedules/);
  });
});

describe('the scan visits only tenants with a schedule', () => {
  it('one statement per 200 tenants names those with a schedule; a tenant without one or a schema without the table is left out', async () => {
    const clusters = t.container.resolve(CLUSTERS);
    const knex = clusters.admin('main');
    const statements: string[] = [];
    const count = (q: { sql: string }) => statements.push(q.sql);
    knex.on('query', count);
    try {
      const found = await tenantsWithReportSchedules(knex, [
        { id: acme.tenantId, schema: acme.schema },
        { id: globex.tenantId, schema: globex.schema },
        { id: 999_999, schema: 'tenant_no_such_schema' },
      ]);
      expect([...found]).toEqual([acme.tenantId]);
      // the migration check and the probe
      expect(statements).toHaveLength(2);
    } finally {
      knex.off('query', count);
    }
  });
});
