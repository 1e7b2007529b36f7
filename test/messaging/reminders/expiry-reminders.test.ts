import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Mutex } from 'redis-semaphore';
import { createTestApp, importDemoTenant, client, type TestApp, type DemoTenant } from '../../support/test-app';
import { asAcme, loginCookie } from '../../support/login';
import { idsByRef } from '../../people/persons/demo-refs';
import { setConfig, tenantDb } from '../../courses/events/events-support';
import { startSmtpSink, startTwilioSink, startTestWorkers, TWILIO_ENV, waitFor } from '../messages/delivery-peers';
import { CLOCK } from '../../../src/platform/time/tenant-clock';
import { QUEUE_PREFIX, QUEUE_REDIS } from '../../../src/platform/queue/job-definition';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../../src/platform/tenant-scope/request-scope';
import { SendExpiryRemindersFlow } from '../../../src/flows/reminders/send-expiry-reminders';
import { scanLockKey } from '../../../src/flows/reminders/reminder-scan';
import { dayAfter, longDate, reminderRows, remindersOf, scanNow, scannerFor } from './reminders-support';

const DAY = 86_400_000;
let now = new Date('2026-03-02T12:00:00Z');
const advance = (days: number) => (now = new Date(now.getTime() + days * DAY));

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let twilio: Awaited<ReturnType<typeof startTwilioSink>>;
let workers: Awaited<ReturnType<typeof startTestWorkers>>;
let admin: Awaited<ReturnType<typeof asAcme>>;
let globexAdmin: ReturnType<typeof client>;
let comps: Record<string, number>;
const logs: { msg: string; user_name?: string; tenant?: string }[] = [];

beforeAll(async () => {
  smtp = await startSmtpSink();
  twilio = await startTwilioSink();
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  t = await createTestApp({ SMTP_URL: smtp.url, TWILIO_BASE_URL: twilio.url, ...TWILIO_ENV }, logger);
  t.container.register(CLOCK, { useValue: { now: () => now } });
  acme = await importDemoTenant(t, 'acme', (doc) => {
    doc.persons.push({ user_name: 'nocontact', password: 'Nocontact-Pass-1', organisation: 'acme-hr' });
  });
  globex = await importDemoTenant(t, 'globex', (doc) => {
    doc.config['sms.from'] = '+15550000000';
  });
  // the workers deliver; the scans of this file are run by the tests themselves
  workers = await startTestWorkers(t.container, [acme.tenantId, globex.tenantId]);
  admin = await asAcme(t, acme.host, 'admin');
  globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', 'Globex-Admin-Pass-1'));
  comps = await idsByRef(t, acme, 'competences');
});

afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await smtp?.stop();
  await twilio?.stop();
});

const scan = () => scanNow(scannerFor(t.container, [acme.tenantId, globex.tenantId]));

async function register(api: { put(url: string): any }, competenceId: number, userName: string, validUntil: string) {
  const res = await api.put(`/api/personcompetences/${competenceId}`).send({ user_name: userName, date: dayAfter(now, -300), valid_until: validUntil });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('a registration reminded once per threshold, by e-mail with the manager in cc', () => {
  it('ola at 5 days left with [30, 7]: one reminder (both thresholds done), kari in cc, seen on the SMTP sink; later scans send none', async () => {
    const validUntil = dayAfter(now, 5);
    await register(admin, comps['fire-ecourse'], 'ola', validUntil);
    await scan();

    const [reminder, ...more] = await remindersOf(admin, 'ola');
    expect(more).toEqual([]);
    expect(reminder.title).toBe(`Reminder: Fire safety e-learning is valid until ${longDate(validUntil)}`);
    expect(reminder.text).toContain('"Fire safety e-learning"');
    expect(reminder.text).toContain(`valid until ${longDate(validUntil)} (5 days left)`);
    expect(reminder).toMatchObject({ cc: 'kari@acme.example', send_medium: 'email', sender_user_name: null });
    expect(reminder.deliveries).toMatchObject([{ medium: 'email', address: 'ola@acme.example' }]);
    // the person sees it in their own list too
    expect((await remindersOf(await asAcme(t, acme.host, 'ola'), 'ola')).map((m) => m.message_id)).toEqual([reminder.message_id]);

    const rows = await reminderRows(t, acme, 'ola', comps['fire-ecourse']);
    expect(rows.map((r) => [r.threshold_days, r.days_left, r.valid_until, r.message_id])).toEqual([
      [7, 5, validUntil, reminder.message_id],
      [30, 5, validUntil, reminder.message_id],
    ]);

    const mail = await waitFor('the reminder mail', () =>
      smtp.mails.find((m) => m.rcptTo.includes('ola@acme.example') && m.headers.subject === reminder.title),
    );
    expect(mail.headers.cc).toBe('kari@acme.example');
    expect(mail.rcptTo.sort()).toEqual(['kari@acme.example', 'ola@acme.example']);
    expect(mail.body).toContain(longDate(validUntil));

    for (const days of [0, 2, 3]) {
      advance(days);
      await scan();
    }
    expect(await remindersOf(admin, 'ola')).toHaveLength(1);
    expect((await reminderRows(t, acme, 'ola', comps['fire-ecourse'])).length).toBe(2);
  });

  it('siri crosses 30, then 7, then expires: a reminder at each threshold, none in between or after', async () => {
    const validUntil = dayAfter(now, 31);
    await register(admin, comps['hse-basic'], 'siri', validUntil);
    const seen: number[] = [];
    for (const step of [0, 1, 10, 13, 1, 7, 1]) {
      advance(step);
      await scan();
      seen.push((await remindersOf(admin, 'siri')).length);
    }
    // days left: 31, 30, 20, 7, 6, -1 (expired), -2
    expect(seen).toEqual([0, 1, 1, 2, 2, 2, 2]);
    const texts = (await remindersOf(admin, 'siri')).map((m) => m.text);
    expect(texts[0]).toContain('(7 days left)');
    expect(texts[1]).toContain('(30 days left)');
  });

  it('a renewal (a new current registration) starts afresh', async () => {
    await register(admin, comps['hse-basic'], 'nils', dayAfter(now, 7));
    await scan();
    expect(await remindersOf(admin, 'nils')).toHaveLength(1);

    const renewedUntil = dayAfter(now, 40);
    await register(admin, comps['hse-basic'], 'nils', renewedUntil);
    await scan();
    expect(await remindersOf(admin, 'nils')).toHaveLength(1);
    advance(12); // 28 days left of the renewal
    await scan();
    advance(22); // 6 days left
    await scan();
    const reminders = await remindersOf(admin, 'nils');
    expect(reminders.map((m) => m.text.match(/\((\d+) days left\)/)?.[1])).toEqual(['6', '28', '7']);
    expect(reminders[0].title).toContain(longDate(renewedUntil));
    const rows = await reminderRows(t, acme, 'nils', comps['hse-basic']);
    expect(new Set(rows.map((r) => r.person_competence_id)).size).toBe(2);
  });
});

describe('medium: e-mail, SMS when only a mobile, skipped and logged when neither', () => {
  it('per has only a mobile: the reminder goes by SMS, without cc', async () => {
    const validUntil = dayAfter(now, 7);
    await register(admin, comps['hse-basic'], 'per', validUntil);
    await scan();
    const [reminder] = await remindersOf(admin, 'per');
    expect(reminder).toMatchObject({ send_medium: 'sms', cc: '' });
    expect(reminder.deliveries).toMatchObject([{ medium: 'sms', address: '+4790000014' }]);
    const sms = await waitFor('the SMS', () => twilio.received.find((s) => s.form.To === '+4790000014' && s.form.Body.includes('HSE basic course')));
    expect(sms.form.Body).toContain(longDate(validUntil));
  });

  it('nocontact has neither: nothing is sent, the threshold is marked done, one warning is logged', async () => {
    await register(admin, comps['hse-basic'], 'nocontact', dayAfter(now, 7));
    await scan();
    await scan();
    expect(await remindersOf(admin, 'nocontact')).toEqual([]);
    const rows = await reminderRows(t, acme, 'nocontact', comps['hse-basic']);
    expect(rows.map((r) => [r.threshold_days, r.message_id])).toEqual([
      [7, null],
      [30, null],
    ]);
    const warned = logs.filter((l) => l.user_name === 'nocontact');
    expect(warned).toHaveLength(1);
    expect(warned[0].msg).toBe('expiry reminder skipped: the person has neither e-mail nor mobile');
  });
});

describe('config items reminders.days_before and reminders.notify_manager', () => {
  it('are listed with their defaults and section', async () => {
    const res = await admin.get('/api/configitems?config_item_ids=reminders.days_before,reminders.notify_manager&view=full');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.configitems.map((i: any) => [i.config_item_id, i.value, i.type])).toEqual([
      ['reminders.days_before', [30, 7], 'int_list'],
      ['reminders.notify_manager', true, 'bool'],
    ]);
    const bad = await admin.put('/api/configitems/reminders.days_before').send({ value: [30, 0] });
    expect(bad.body).toMatchObject({ valid: false, errorcode: 420 });
  });

  it('notify_manager=false: no manager in cc', async () => {
    await setConfig(t, acme, 'reminders.notify_manager', false);
    try {
      await register(admin, comps['leadership-101'], 'ola', dayAfter(now, 7));
      await scan();
      const reminder = (await remindersOf(admin, 'ola')).find((m) => m.title.includes('Leadership'));
      expect(reminder).toMatchObject({ cc: '', send_medium: 'email' });
    } finally {
      await setConfig(t, acme, 'reminders.notify_manager', true);
    }
  });

  it("an empty days_before turns a tenant's reminders off without touching another tenant's; other thresholds work", async () => {
    const globexComps = await idsByRef(t, globex, 'competences');
    await setConfig(t, globex, 'reminders.days_before', []);
    await register(globexAdmin, globexComps['reactor-safety'], 'homer', dayAfter(now, 10));
    await register(admin, comps['welding-skill'], 'ola', dayAfter(now, 10));
    await scan();
    expect(await remindersOf(globexAdmin, 'homer')).toEqual([]);
    expect((await remindersOf(admin, 'ola')).filter((m) => m.title.includes('TIG'))).toHaveLength(1);

    await setConfig(t, globex, 'reminders.days_before', [14]);
    await scan();
    const [reminder, ...more] = await remindersOf(globexAdmin, 'homer');
    expect(more).toEqual([]);
    expect(reminder).toMatchObject({ send_medium: 'sms' });
    expect(reminder.text).toContain('(10 days left)');
  });

  it("days left are counted in the tenant's calendar (tenant.timezone)", async () => {
    // 12:00 UTC is 02:00 the next day in Kiritimati (UTC+14): 8 days left in UTC are 7 there.
    now = new Date(Math.floor(now.getTime() / DAY) * DAY + 12 * 3_600_000);
    const globexComps = await idsByRef(t, globex, 'competences');
    await setConfig(t, globex, 'reminders.days_before', [7]);
    const db = tenantDb(t, globex);
    await db.table('person_competences').where({ competence_id: globexComps['reactor-safety'] }).update({ deleted_at: db.fn.now() });
    await register(globexAdmin, globexComps['reactor-safety'], 'admin', dayAfter(now, 8));
    await scan();
    expect(await remindersOf(globexAdmin, 'admin')).toEqual([]);
    await setConfig(t, globex, 'tenant.timezone', 'Pacific/Kiritimati');
    await scan();
    const [reminder] = await remindersOf(globexAdmin, 'admin');
    expect(reminder.text).toContain(`valid until ${longDate(dayAfter(now, 8))} (7 days left)`);
  });
});

describe('one reminder however scans overlap', () => {
  it('two scans of a tenant at once remind each of 40 due registrations exactly once', async () => {
    await scan(); // nothing else due in the two scans below
    const db = tenantDb(t, acme);
    const ids: number[] = await db
      .table('persons')
      .insert(Array.from({ length: 40 }, (_, i) => ({ user_name: `bulk${i}`, email: `bulk${i}@acme.example` })))
      .returning('id')
      .then((rows) => rows.map((r: { id: number }) => r.id));
    await db
      .table('person_competences')
      .insert(ids.map((id) => ({ person_id: id, competence_id: comps['welding-cert'], date: dayAfter(now, -100), valid_until: dayAfter(now, 3) })));
    const tenant = (await t.container.resolve(TenantResolver).byTenantId(acme.tenantId))!;
    const scanTenant = () => openTenantScope(t.container, tenant).resolve(SendExpiryRemindersFlow).scan();
    const [a, b] = await Promise.all([scanTenant(), scanTenant()]);
    expect(a.email + b.email).toBe(40);

    const perPerson = await db.table('messages').whereIn('recipient_id', ids).groupBy('recipient_id').select('recipient_id', db.raw('count(*)::int as n'));
    expect(perPerson).toHaveLength(40);
    expect(perPerson.every((r: { n: number }) => r.n === 1)).toBe(true);
    await waitFor('40 reminder mails', () => smtp.mails.filter((m) => /^bulk\d+@/.test(m.rcptTo[0])).length >= 40);
    expect(smtp.mails.filter((m) => /^bulk\d+@/.test(m.rcptTo[0]))).toHaveLength(40);
  });

  it('a scan finding the lock taken (a scan in another process) does nothing and says busy', async () => {
    const redis = t.container.resolve(QUEUE_REDIS);
    const other = new Mutex(redis, scanLockKey(t.container.resolve(QUEUE_PREFIX)), { lockTimeout: 30_000, acquireAttemptsLimit: 1 });
    await waitFor('the lock', () => other.tryAcquire());
    try {
      expect(await scannerFor(t.container, [acme.tenantId]).run()).toBe('busy');
    } finally {
      await other.release();
    }
    expect(await scannerFor(t.container, [acme.tenantId]).run()).toMatchObject({ tenants: 1 });
  });

  it("a scan limited to one tenant leaves the other's registrations alone (reminder rows live in each tenant's schema)", async () => {
    await setConfig(t, globex, 'reminders.days_before', [30, 7]);
    await register(globexAdmin, (await idsByRef(t, globex, 'competences'))['reactor-safety'], 'homer', dayAfter(now, 3));
    const before = (await remindersOf(globexAdmin, 'homer')).length;
    await scanNow(scannerFor(t.container, [acme.tenantId]));
    expect(await remindersOf(globexAdmin, 'homer')).toHaveLength(before);
    await scanNow(scannerFor(t.container, [globex.tenantId]));
    expect(await remindersOf(globexAdmin, 'homer')).toHaveLength(before + 1);
    // acme's reminder table knows nothing of globex's registrations
    expect(
      await tenantDb(t, acme)
        .table('expiry_reminders')
        .whereNotIn('person_competence_id', tenantDb(t, acme).table('person_competences').select('id'))
        .count('* as n')
        .first(),
    ).toEqual({ n: '0' });
  });
});
