import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { idsByRef } from '../../people/persons/demo-refs';
import { startSmtpSink, startTestWorkers, waitFor } from '../messages/delivery-peers';
import { QueueRegistry } from '../../../src/platform/queue/queue-registry';
import { ReminderScheduler } from '../../../src/messaging/reminders/reminder-scheduler';
import { REMINDER_SCHEDULER_ID } from '../../../src/messaging/reminders/reminder-scheduler';
import { dayAfter, longDate, remindersOf } from './reminders-support';

// The real BullMQ job scheduler and workers, the real clock, a scan every second.
let t: TestApp;
let acme: DemoTenant;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let workers: Awaited<ReturnType<typeof startTestWorkers>> | undefined;

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await createTestApp({ SMTP_URL: smtp.url, REMINDER_SCAN_INTERVAL_SECONDS: '1' });
  acme = await importDemoTenant(t, 'acme');
});

afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await smtp?.stop();
});

const completedScans = async () => (await t.container.resolve(QueueRegistry).get('scheduled').getJobCounts('completed')).completed ?? 0;

describe('scheduled reminder scans (REMINDER_SCAN_INTERVAL_SECONDS=1)', () => {
  it('ola, registered as expiring in 7 days, gets one reminder mail with kari in cc, and no second one from later scans', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const comps = await idsByRef(t, acme, 'competences');
    const validUntil = dayAfter(new Date(), 7);
    const put = await admin.put(`/api/personcompetences/${comps['leadership-101']}`).send({ user_name: 'ola', valid_until: validUntil });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    workers = await startTestWorkers(t.container, [acme.tenantId], undefined, {}, [acme.tenantId]);
    const subject = `Reminder: Leadership 101 is valid until ${longDate(validUntil)}`;
    const toOla = () => smtp.mails.filter((m) => m.rcptTo.includes('ola@acme.example') && m.headers.subject === subject);
    const mail = await waitFor('the reminder mail', () => toOla()[0]);
    expect(mail.headers.to).toBe('ola@acme.example');
    expect(mail.headers.cc).toBe('kari@acme.example');
    expect(mail.body).toContain(`Your registration of "Leadership 101" is valid until ${longDate(validUntil)} (7 days left).`);

    // three more scans run to completion after the mail went out
    const after = await completedScans();
    await waitFor('three more scans', async () => (await completedScans()) >= after + 3);
    expect(toOla()).toHaveLength(1);
    expect((await remindersOf(admin, 'ola')).filter((m) => m.title === subject)).toHaveLength(1);
  });

  it('every worker process upserts the same scheduler: there is one, with the configured interval', async () => {
    // a second worker process starting up
    await t.container.resolve(ReminderScheduler).start();
    const schedulers = await t.container.resolve(QueueRegistry).get('scheduled').getJobSchedulers();
    // the queue also holds the report schedule scan's scheduler (src/messaging/report-schedules)
    expect(schedulers.filter((s) => s.key === REMINDER_SCHEDULER_ID).map((s) => [s.key, s.every])).toEqual([[REMINDER_SCHEDULER_ID, 1000]]);
  });
});
