import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { tenantDb } from '../../courses/events/events-support';
import { startSmtpSink, startTestWorkers, waitFor } from '../../messaging/messages/delivery-peers';
import { CLOCK, instantIn } from '../../../src/platform/time/tenant-clock';
import { QueueRegistry } from '../../../src/platform/queue/queue-registry';
import { REPORT_SCHEDULE_SCAN_OPTIONS } from '../../../src/flows/reports/report-schedule-scan';
import type { TenantDb } from '../../../src/platform/tenant-scope/tenant-db';

const CHILD = path.join(__dirname, 'report-worker-child.ts');
const ZONE = 'Europe/Oslo';
const at = (local: string) => instantIn(ZONE, local)!;

let t: TestApp;
let acme: DemoTenant;
let db: TenantDb;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let workers: Awaited<ReturnType<typeof startTestWorkers>> | undefined;
let child: ChildProcess | undefined;
const clock = { now: at('2026-12-02T10:00') }; // a Wednesday

beforeAll(async () => {
  smtp = await startSmtpSink();
  // a mail left `sending` by a dead worker is sent again after 2 s (default 300)
  t = await createTestApp({ SMTP_URL: smtp.url, REPORT_SCHEDULE_SCAN_INTERVAL_SECONDS: '1', OUTBOX_REDELIVER_AFTER_SECONDS: '2' });
  t.container.register(CLOCK, { useValue: { now: () => clock.now } });
  acme = await importDemoTenant(t, 'acme', (doc) => {
    doc.config = { ...doc.config, 'tenant.timezone': ZONE };
  });
  db = tenantDb(t, acme);
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await workers?.stop();
  await t?.close();
  await smtp?.stop();
});

describe('a worker process killed between the claim of a period and the end of its mail', () => {
  it('the next worker sends the mail: exactly one, with the attachment; the period is not sent again', async () => {
    const ops = (await db.table('organisations').where({ name: 'Operations' }).first('id')).id;
    const admin = await asAcme(t, acme.host, 'admin');
    const created = await admin.post('/api/reports/schedules').send({
      schedule_data: { report: 'compliance', organisation_id: ops, format: 'xlsx', frequency: 'weekly', weekday: 4, time: '08:00', recipients: 'managers' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.schedules[0].schedule_id;

    // the SMTP server takes the mail but never answers: the child is mid-send when it is killed
    smtp.pace.delayMs = 3_600_000;
    const prefix = `test-kill-${Date.now()}`;
    child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: {
        ...process.env,
        CHILD_DATABASE_URL: inject('databaseUrl'),
        CHILD_REDIS_URL: inject('redisUrl'),
        CHILD_QUEUE_PREFIX: prefix,
        CHILD_TENANT_ID: String(acme.tenantId),
        CHILD_SMTP_URL: smtp.url,
        CHILD_NOW: at('2026-12-03T08:30').toISOString(),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await waitFor(
      'the child claimed the period and is sending',
      async () => {
        const runs = await db.table('report_schedule_runs').where({ schedule_id: id });
        const sending = await db
          .table('message_deliveries')
          .whereIn('message_id', runs[0]?.message_ids ?? [])
          .where({ state: 'sending' });
        return runs.length === 1 && sending.length === 1 && smtp.pace.receiving === 1;
      },
      60_000,
    );
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    smtp.pace.delayMs = 0;
    expect(smtp.mails).toHaveLength(0);

    // the next worker, in the same period, on the same outbox. Its queues are fresh (startTestWorkers): the
    // dead worker's job is lost with them, as after a Redis loss, so the relay's redelivery of the row the dead
    // worker left `sending` (OUTBOX_REDELIVER_AFTER_SECONDS) is what sends the mail, with the same Message-ID.
    clock.now = at('2026-12-03T08:35');
    t.container.register(REPORT_SCHEDULE_SCAN_OPTIONS, { useValue: { onlyTenants: [acme.tenantId] } });
    workers = await startTestWorkers(t.container, [acme.tenantId], undefined, { reconcileMs: 500 });
    const mail = await waitFor('the mail after the kill', () => smtp.mails.find((m) => m.rcptTo.includes('kari@acme.example')), 60_000);
    const parsed = await simpleParser(mail.raw);
    expect(parsed.subject).toBe('Compliance summary of Operations, 2026-12-03');
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['compliance-2026-12-03.xlsx']);
    const completed = async () => (await t.container.resolve(QueueRegistry).get('scheduled').getJobCounts('completed')).completed ?? 0;
    const after = await completed();
    await waitFor('three more scans', async () => (await completed()) >= after + 3);
    expect(smtp.mails.filter((m) => m.rcptTo.includes('kari@acme.example'))).toHaveLength(1);
    expect(await db.table('report_schedule_runs').where({ schedule_id: id })).toHaveLength(1);
  });
});
