import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, client, type TestApp, type DemoTenant } from '../../support/test-app';
import { asAcme, GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { startTestWorkers, waitFor } from '../../messaging/messages/delivery-peers';
import { ACME_SWT, inAnHour, swtToken } from '../../identity/sso/swt-test-token';
import { KNEX } from '../../../src/platform/tokens';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let workers: Awaited<ReturnType<typeof startTestWorkers>>;

beforeAll(async () => {
  // No SMTP_URL and no Twilio: every delivery fails with "not configured", which is what a retry needs.
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  globex = await importDemoTenant(t, 'globex');
  workers = await startTestWorkers(t.container, [acme.tenantId, globex.tenantId]);
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

const checkSwt = async (body: object) => {
  const admin = await asAcme(t, acme.host, 'admin');
  const res = await admin.post('/api/configitems/api.oauth.secret/check').send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(JSON.stringify(res.body)).not.toContain(ACME_SWT.secret);
  return res.body as { checks: { check: string; ok: boolean; detail: string }[]; token?: string };
};
const failed = (r: { checks: { check: string; ok: boolean }[] }) => r.checks.filter((c) => !c.ok).map((c) => c.check);
const token = (pairs: Record<string, string | number>, secret = ACME_SWT.secret) =>
  swtToken(secret, { Issuer: ACME_SWT.issuer, ExpiresOn: inAnHour(), username: 'ola', ...pairs });

describe('SWT checker', () => {
  it('refuses non-superusers with 403', async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    expect((await kari.post('/api/configitems/api.oauth.secret/check').send({ token: token({}) })).status).toBe(403);
    expect((await kari.get('/api/configitems/cors.origins/check?origin=https://a.example')).status).toBe(403);
  });

  it('passes every check for a good token and names the current secret', async () => {
    const r = await checkSwt({ token: token({}) });
    expect(r.checks.map((c) => [c.check, c.ok])).toEqual([
      ['format', true],
      ['signature', true],
      ['issuer', true],
      ['expiry', true],
      ['lifetime', true],
      ['user', true],
    ]);
    expect(r.checks[1].detail).toContain('current secret');
    expect(r.checks[5].detail).toContain('ola');
  });

  it('fails each check for its own reason', async () => {
    expect(failed(await checkSwt({ token: 'username=ola' }))).toEqual(['format']);
    expect(failed(await checkSwt({ token: token({}, 'another-secret-of-the-wrong-kind') }))).toEqual(['signature']);
    expect(failed(await checkSwt({ token: token({ Issuer: 'https://evil.example' }) }))).toEqual(['issuer']);
    expect(failed(await checkSwt({ token: token({ ExpiresOn: Math.floor(Date.now() / 1000) - 3600 }) }))).toEqual(['expiry']);
    expect(failed(await checkSwt({ token: token({ ExpiresOn: Math.floor(Date.now() / 1000) + 40 * 86400 }) }))).toEqual(['lifetime']);
    expect(failed(await checkSwt({ token: token({ username: 'nobody-here' }) }))).toEqual(['user']);
  });

  it('names the previous secret while a rotation is under way', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const previous = 'the-previous-acme-swt-secret-42';
    expect((await admin.put('/api/configitems/api.oauth.previous_secret').send({ value: previous })).status).toBe(200);
    const r = await checkSwt({ token: token({}, previous) });
    expect(r.checks.find((c) => c.check === 'signature')).toMatchObject({ ok: true, detail: expect.stringContaining('previous secret') });
    expect(JSON.stringify(r)).not.toContain(previous);
  });

  it('builds a short-lived token from the stored secret that the SWT sign-on accepts, and caps its lifetime', async () => {
    const r = await checkSwt({ user_name: 'ola', expires_in_seconds: 120 });
    expect(failed(r)).toEqual([]);
    const res = await client(t, acme.host).get('/api/configitems/cors.origins').set('Authorization', `SWT ${r.token}`);
    expect(res.status).toBe(200);
    const admin = await asAcme(t, acme.host, 'admin');
    const tooLong = await admin.post('/api/configitems/api.oauth.secret/check').send({ user_name: 'ola', expires_in_seconds: 3600 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ valid: false, errorcode: 420 });
  });
});

describe('CORS checker', () => {
  const check = async (origin: string) => {
    const admin = await asAcme(t, acme.host, 'admin');
    const res = await admin.get(`/api/configitems/cors.origins/check?origin=${encodeURIComponent(origin)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.cors_check[0] as { allowed: boolean; reason: string };
  };
  it('allows a listed origin and explains refusals', async () => {
    expect(await check('https://portal.acme.example')).toMatchObject({ allowed: true });
    expect((await check('https://portal.acme.example/')).reason).toContain('not an origin');
    expect((await check('http://portal.acme.example')).reason).toContain('another scheme or port');
    expect(await check('https://elsewhere.example')).toEqual({ origin: 'https://elsewhere.example', allowed: false, reason: 'not listed in cors.origins' });
  });
});

describe('deliveries', () => {
  it('lists failed deliveries with the reason, retries one through the outbox, audits it, and refuses a non-failed one with 409', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const kari = await asAcme(t, acme.host, 'kari');
    const sent = await admin.post('/api/messages').send({ user_name: 'ola', title: 'Reminder', text: 'Course tomorrow' });
    expect(sent.status).toBe(200);
    const messageId = sent.body.messages[0].message_id;
    const failedRow = await waitFor('the e-mail delivery failed', async () => {
      const r = await admin.get('/api/messages/deliveries?state=failed');
      return r.body.deliveries.find((d: any) => d.message_id === messageId);
    });
    expect(failedRow).toMatchObject({ medium: 'email', state: 'failed', attempts: 1, user_name: 'ola', title: 'Reminder' });
    expect(failedRow.reason).toContain('not configured');
    expect((await kari.get('/api/messages/deliveries')).status).toBe(403);
    expect((await kari.post(`/api/messages/deliveries/${failedRow.delivery_id}/retry`)).status).toBe(403);

    const retried = await admin.post(`/api/messages/deliveries/${failedRow.delivery_id}/retry`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.deliveries[0]).toMatchObject({ delivery_id: failedRow.delivery_id, state: 'queued' });
    // The relay hands it to the worker again (a second attempt), which fails for the same reason.
    await waitFor('a second attempt', async () => {
      const r = await admin.get('/api/messages/deliveries?state=failed');
      return r.body.deliveries.find((d: any) => d.delivery_id === failedRow.delivery_id && d.attempts === 2);
    });
    const log = await admin.get('/api/auditlog?type=delivery.retried');
    expect(log.body.auditlog[0]).toMatchObject({ actor: 'admin', subject: String(failedRow.delivery_id), details: { message_id: messageId, medium: 'email' } });

    await t.container.resolve(KNEX).withSchema(acme.schema).table('message_deliveries').where({ id: failedRow.delivery_id }).update({ state: 'sent' });
    const conflict = await admin.post(`/api/messages/deliveries/${failedRow.delivery_id}/retry`);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ valid: false, errorcode: 409 });
    expect((await admin.post('/api/messages/deliveries/999999/retry')).status).toBe(404);
  });

  it("never shows or retries another tenant's deliveries", async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const rows = (await admin.get('/api/messages/deliveries')).body.deliveries;
    expect(rows.length).toBeGreaterThan(0);
    const globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    expect((await globexAdmin.get('/api/messages/deliveries')).body.deliveries).toEqual([]);
    expect((await globexAdmin.post(`/api/messages/deliveries/${rows[0].delivery_id}/retry`)).status).toBe(404);
  });
});
