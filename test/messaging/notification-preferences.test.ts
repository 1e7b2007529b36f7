import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, client, type TestApp, type DemoTenant } from '../support/test-app';
import { asAcme, loginCookie } from '../support/login';
import { idsByRef } from '../people/persons/demo-refs';
import { setConfig, tenantDb } from '../courses/events/events-support';
import { startSmtpSink, startTwilioSink, startTestWorkers, TWILIO_ENV, waitFor } from './messages/delivery-peers';
import { CLOCK } from '../../src/platform/time/tenant-clock';
import { NOTICE_TYPES, SECURITY_NOTICE_TYPES } from '../../src/messaging';
import { deliveriesFor } from '../../src/messaging/notices/notice-media';
import { REQUIRABLE_NOTICE_TYPES } from '../../src/platform/config-items/notice-config-items';
import { longDate } from './reminders/reminders-support';
import { dayAfter, remindersOf, scanNow, scannerFor } from './reminders/reminders-support';

const now = new Date('2026-03-02T12:00:00Z');

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let twilio: Awaited<ReturnType<typeof startTwilioSink>>;
let workers: Awaited<ReturnType<typeof startTestWorkers>>;
let admin: Awaited<ReturnType<typeof asAcme>>;
let globexAdmin: ReturnType<typeof client>;
let comps: Record<string, number>;

beforeAll(async () => {
  smtp = await startSmtpSink();
  twilio = await startTwilioSink();
  t = await createTestApp({ SMTP_URL: smtp.url, TWILIO_BASE_URL: twilio.url, ...TWILIO_ENV });
  t.container.register(CLOCK, { useValue: { now: () => now } });
  acme = await importDemoTenant(t, 'acme');
  globex = await importDemoTenant(t, 'globex');
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

const scan = () => scanNow(scannerFor(t.container, [acme.tenantId]));

async function register(competenceId: number, userName: string, validUntil: string) {
  const res = await admin.put(`/api/personcompetences/${competenceId}`).send({ user_name: userName, date: dayAfter(now, -300), valid_until: validUntil });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function choose(api: ReturnType<typeof client>, userName: string, preferences: Record<string, string>) {
  return api.put(`/api/persons/${userName}/notificationpreferences`).send({ preferences });
}

const byType = (body: any) => Object.fromEntries(body.notificationpreferences.map((p: any) => [p.notice_type, p]));

describe('the medium a preference gives (deliveriesFor)', () => {
  const both = { email: 'a@x.example', mobile: '+4790000099' };
  it('the chosen medium, the other when its address is missing, two for both, none for none', () => {
    expect(deliveriesFor('sms', both)).toEqual([{ medium: 'sms', address: '+4790000099' }]);
    expect(deliveriesFor('sms', { email: 'a@x.example', mobile: null })).toEqual([{ medium: 'email', address: 'a@x.example' }]);
    expect(deliveriesFor('email', { email: null, mobile: '+4790000099' })).toEqual([{ medium: 'sms', address: '+4790000099' }]);
    expect(deliveriesFor('both', both).map((d) => d.medium)).toEqual(['email', 'sms']);
    expect(deliveriesFor('both', { email: null, mobile: '+4790000099' }).map((d) => d.medium)).toEqual(['sms']);
    expect(deliveriesFor('none', both)).toEqual([]);
    expect(deliveriesFor('email', { email: null, mobile: null })).toEqual([]);
  });

  it("the kernel's list of requirable notice types is messaging's NOTICE_TYPES", () => {
    expect([...REQUIRABLE_NOTICE_TYPES]).toEqual([...NOTICE_TYPES]);
  });
});

describe('GET and PUT /api/persons/[user_name]/notificationpreferences', () => {
  it('self sees every notice type with its default and whether it is required', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const res = await ola.get('/api/persons/ola/notificationpreferences');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.notificationpreferences.map((p: any) => p.notice_type)).toEqual([...NOTICE_TYPES]);
    const prefs = byType(res.body);
    for (const type of SECURITY_NOTICE_TYPES) expect(prefs[type]).toMatchObject({ required: true, required_by: 'security' });
    expect(prefs.expiry_reminder).toEqual({
      notice_type: 'expiry_reminder',
      medium: 'email',
      default: 'email',
      chosen: false,
      required: false,
      required_by: null,
    });
  });

  it('a security notice cannot be turned off: 420 naming it, and nothing changes', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const res = await choose(ola, 'ola', { password_reset: 'none', expiry_reminder: 'sms' });
    expect(res.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(res.body.message).toContain('preferences[password_reset]');
    const after = byType((await ola.get('/api/persons/ola/notificationpreferences')).body);
    expect(after.expiry_reminder.chosen).toBe(false);
    // the medium of a security notice may still be chosen
    expect((await choose(ola, 'ola', { password_reset: 'sms' })).status).toBe(200);
    expect((await choose(ola, 'ola', { password_reset: 'default' })).status).toBe(200);
    // the bracket form of a form post, as person_data takes it
    const form = await ola.put('/api/persons/ola/notificationpreferences').type('form').send('preferences[event_changed]=both');
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect(byType(form.body).event_changed).toMatchObject({ medium: 'both', chosen: true });
    expect((await choose(ola, 'ola', { event_changed: '' })).status).toBe(200);
  });

  it('a notice the tenant requires (messages.required_notices) cannot be turned off either', async () => {
    const bad = await admin.put('/api/configitems/messages.required_notices').send({ value: ['no_such_notice'] });
    expect(bad.body).toMatchObject({ valid: false, errorcode: 420 });
    await setConfig(t, acme, 'messages.required_notices', ['sign_on']);
    try {
      const siri = await asAcme(t, acme.host, 'siri');
      const res = await choose(siri, 'siri', { sign_on: 'none' });
      expect(res.body).toMatchObject({ valid: false, errorcode: 420 });
      expect(res.body.message).toContain('preferences[sign_on]');
      expect(res.body.message).toContain('required by the tenant');
      const ok = await choose(siri, 'siri', { sign_on: 'both' });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(byType(ok.body).sign_on).toMatchObject({ medium: 'both', chosen: true, required: true, required_by: 'tenant' });
    } finally {
      await setConfig(t, acme, 'messages.required_notices', []);
    }
  });

  it('an unknown type or medium is a 420 naming it; a missing preferences a 419', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const unknownMedium = await choose(ola, 'ola', { expiry_reminder: 'pigeon' });
    expect(unknownMedium.body.errorcode).toBe(420);
    expect(unknownMedium.body.message).toContain('preferences[expiry_reminder]');
    const unknownType = await choose(ola, 'ola', { birthday_card: 'email' });
    expect(unknownType.body.errorcode).toBe(420);
    expect(unknownType.body.message).toContain('birthday_card');
    const missing = await ola.put('/api/persons/ola/notificationpreferences').send({});
    expect(missing.body.errorcode).toBe(419);
  });

  it('others may not: 403 for a colleague, 404 for a person of another tenant (or none)', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    expect((await ola.get('/api/persons/siri/notificationpreferences')).status).toBe(403);
    expect((await choose(ola, 'siri', { expiry_reminder: 'none' })).status).toBe(403);
    // globex's admin asks for acme's ola (no such person at globex) and acme's admin for globex's homer
    expect((await globexAdmin.get('/api/persons/ola/notificationpreferences')).status).toBe(404);
    expect((await admin.get('/api/persons/homer/notificationpreferences')).status).toBe(404);
    expect((await choose(admin, 'homer', { expiry_reminder: 'none' })).status).toBe(404);
  });

  it("a superuser's change of someone else's preferences is audited; one's own is not", async () => {
    const res = await choose(admin, 'nils', { scheduled_report: 'none' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const log = await admin.get('/api/auditlog?type=notification_preferences.changed');
    expect(log.status).toBe(200);
    const entry = log.body.auditlog.find((e: any) => e.subject === 'nils');
    expect(entry).toMatchObject({ actor: 'admin', details: { changed: { scheduled_report: { from: 'email', to: 'none' } } } });
    await choose(admin, 'admin', { scheduled_report: 'both' });
    const again = await admin.get('/api/auditlog?type=notification_preferences.changed');
    expect(again.body.auditlog.filter((e: any) => e.subject === 'admin')).toEqual([]);
    await choose(admin, 'nils', { scheduled_report: '' });
  });
});

describe('delivery follows the preference (expiry reminders, Twilio stand-in and SMTP sink)', () => {
  it('sms: an SMS and no mail; both: two deliveries; sms without a mobile: e-mail; none: nothing', async () => {
    await choose(admin, 'ola', { expiry_reminder: 'sms' });
    await choose(admin, 'kari', { expiry_reminder: 'both' });
    await choose(admin, 'siri', { expiry_reminder: 'sms' });
    await choose(admin, 'nils', { expiry_reminder: 'none' });
    const validUntil = dayAfter(now, 5);
    for (const who of ['ola', 'kari', 'siri', 'nils']) await register(comps['fire-ecourse'], who, validUntil);
    const summary = await scan();
    expect(summary).toMatchObject({ turnedOff: 1 });

    const [olas] = await remindersOf(admin, 'ola');
    expect(olas).toMatchObject({ send_medium: 'sms', cc: '' });
    expect(olas.deliveries).toMatchObject([{ medium: 'sms', address: '+4790000012' }]);
    const sms = await waitFor('the SMS to ola', () => twilio.received.find((s) => s.form.To === '+4790000012' && s.form.Body.includes(longDate(validUntil))));
    expect(sms.form.Body).toContain('Fire safety e-learning');

    const [karis] = await remindersOf(admin, 'kari');
    expect(karis.send_medium).toBe('both');
    expect(karis.deliveries.map((d) => [d.medium, d.address]).sort()).toEqual([
      ['email', 'kari@acme.example'],
      ['sms', '+4790000011'],
    ]);
    await waitFor('the SMS to kari', () => twilio.received.find((s) => s.form.To === '+4790000011' && s.form.Body.includes(longDate(validUntil))));
    await waitFor('the mail to kari', () => smtp.mails.find((m) => m.rcptTo.includes('kari@acme.example') && m.headers.subject === karis.title));

    const [siris] = await remindersOf(admin, 'siri');
    expect(siris.deliveries).toMatchObject([{ medium: 'email', address: 'siri@acme.example' }]);
    await waitFor('the mail to siri', () => smtp.mails.find((m) => m.rcptTo.includes('siri@acme.example') && m.headers.subject === siris.title));

    expect(await remindersOf(admin, 'nils')).toEqual([]);
    // ola's reminder: no mail at all (the SMS went out, so a mail would have too by now)
    expect(smtp.mails.filter((m) => m.rcptTo.includes('ola@acme.example') && m.headers.subject === olas.title)).toEqual([]);
  });

  it('a password mail with sms chosen goes by SMS; both still gives one password (by e-mail)', async () => {
    await choose(admin, 'ola', { password_reset: 'sms' });
    const anon = client(t, acme.host);
    expect((await anon.post('/api/forgot_password').send({ identification: 'ola' })).status).toBe(200);
    const db = tenantDb(t, acme);
    const olaId = (await db.table('persons').where('user_name', 'ola').first('id')).id;
    const last = async () => db.table('messages').where({ recipient_id: olaId, kind: 'password' }).orderBy('id', 'desc').first('id', 'send_medium');
    expect(await last()).toMatchObject({ send_medium: 'sms' });
    await waitFor('the password SMS', () => twilio.received.find((s) => s.form.To === '+4790000012' && /Password: \S+/.test(s.form.Body)));

    await choose(admin, 'ola', { password_reset: 'both' });
    expect((await anon.post('/api/forgot_password').send({ identification: 'ola' })).status).toBe(200);
    const m = await last();
    expect(m.send_medium).toBe('email');
    expect(await db.table('message_deliveries').where('message_id', m.id).count({ n: '*' }).first()).toMatchObject({ n: '1' });
  });

  it("the person's choices are in their export and go with the erasure", async () => {
    const exp = await admin.get('/api/persons/kari/export');
    expect(exp.status, JSON.stringify(exp.body)).toBe(200);
    expect(exp.body.export[0].notificationpreferences).toMatchObject([{ notice_type: 'expiry_reminder', medium: 'both' }]);
    const db = tenantDb(t, acme);
    const kariId = (await db.table('persons').where('user_name', 'kari').first('id')).id;
    const erased = await admin.post('/api/persons/kari/erase').send({ confirm: 'kari' });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect(await db.table('notification_preferences').where('person_id', kariId)).toEqual([]);
  });
});
