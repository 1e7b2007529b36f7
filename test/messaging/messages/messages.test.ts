import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, client, type TestApp, type DemoTenant } from '../../support/test-app';
import { asAcme, loginCookie } from '../../support/login';
import { startSmtpSink, startTwilioSink, startTestWorkers, TWILIO_ENV, waitFor } from './delivery-peers';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let twilio: Awaited<ReturnType<typeof startTwilioSink>>;
let workers: Awaited<ReturnType<typeof startTestWorkers>>;

beforeAll(async () => {
  smtp = await startSmtpSink();
  twilio = await startTwilioSink();
  t = await createTestApp({ SMTP_URL: smtp.url, TWILIO_BASE_URL: twilio.url, ...TWILIO_ENV });
  acme = await importDemoTenant(t, 'acme');
  globex = await importDemoTenant(t, 'globex');
  workers = await startTestWorkers(t.container, [acme.tenantId, globex.tenantId]);
});

afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await smtp?.stop();
  await twilio?.stop();
});

const sentTo = (addr: string) => smtp.mails.filter((m) => m.rcptTo.includes(addr));

describe('POST /api/messages delivers by e-mail and SMS', () => {
  it('admin sends ola a message by both media with cc: one mail from the tenant sender with the cc, one SMS from sms.from, both shown as sent', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const res = await admin.post('/api/messages').send({
      user_name: 'ola',
      title: 'Welding course moved',
      text: 'The welding course starts at 09:00 on Monday.',
      cc: 'kari@acme.example; hr@acme.example',
      send_medium: 'both',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.valid).toBe(true);
    const msg = res.body.messages[0];
    expect(msg.user_name).toBe('ola');
    expect(msg.deliveries.map((d: any) => [d.medium, d.state])).toEqual([
      ['email', 'queued'],
      ['sms', 'queued'],
    ]);

    const done = await waitFor('both deliveries sent', async () => {
      const r = await admin.get(`/api/messages?user_name=ola`);
      const m = r.body.messages.find((x: any) => x.message_id === msg.message_id);
      return m.deliveries.every((d: any) => d.state === 'sent') ? m : null;
    });
    expect(done.deliveries.map((d: any) => [d.medium, d.address, d.state, d.attempts])).toEqual([
      ['email', 'ola@acme.example', 'sent', 1],
      ['sms', '+4790000012', 'sent', 1],
    ]);

    const mails = smtp.mails.filter((m) => m.headers.subject === 'Welding course moved');
    expect(mails).toHaveLength(1);
    expect(mails[0].headers.from).toBe('Acme Training <training@acme.example>');
    expect(mails[0].headers.to).toBe('ola@acme.example');
    expect(mails[0].headers.cc).toBe('kari@acme.example, hr@acme.example');
    expect(mails[0].rcptTo.sort()).toEqual(['hr@acme.example', 'kari@acme.example', 'ola@acme.example']);
    expect(mails[0].body).toContain('The welding course starts at 09:00 on Monday.');

    const sms = twilio.received.filter((s) => s.form.To === '+4790000012');
    expect(sms).toHaveLength(1);
    expect(sms[0].form.From).toBe('+4790000001');
    expect(sms[0].form.Body).toContain('The welding course starts at 09:00 on Monday.');
    expect(sms[0].path).toBe(`/2010-04-01/Accounts/${TWILIO_ENV.TWILIO_ACCOUNT_SID}/Messages.json`);
  });

  it('reply_to=manager puts the nearest manager above the recipient (kari manages Operations) into Reply-To', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const res = await admin.post('/api/messages').send({ user_name: 'nils', title: 'Ask your manager', text: 'Reply to your manager.', reply_to: 'manager' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.messages[0].reply_to).toBe('kari@acme.example');
    const mail = await waitFor('mail to nils', () => sentTo('nils@acme.example').find((m) => m.headers.subject === 'Ask your manager'));
    expect(mail.headers['reply-to']).toBe('kari@acme.example');
  });

  it('reply_to with an address is used as Reply-To; send_medium defaults to email', async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    const res = await kari.post('/api/messages').send({ user_name: 'ola', title: 'Shift plan', text: 'See the plan.', reply_to: 'planning@acme.example' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.messages[0].send_medium).toBe('email');
    const mail = await waitFor('mail', () => sentTo('ola@acme.example').find((m) => m.headers.subject === 'Shift plan'));
    expect(mail.headers['reply-to']).toBe('planning@acme.example');
  });
});

describe('POST /api/messages checks its input at request time', () => {
  it('a recipient without e-mail (per) is a 420 for send_medium=email', async () => {
    const res = await (await asAcme(t, acme.host, 'admin')).post('/api/messages').send({ user_name: 'per', title: 'x', text: 'y', send_medium: 'email' });
    expect(res.body.errorcode).toBe(420);
    expect(res.body.message).toMatch(/per has no e-mail address/);
  });

  it('a recipient without mobile (siri) is a 420 for send_medium=sms and for both', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    for (const medium of ['sms', 'both']) {
      const res = await admin.post('/api/messages').send({ user_name: 'siri', title: 'x', text: 'y', send_medium: medium });
      expect(res.body.errorcode).toBe(420);
      expect(res.body.message).toMatch(/siri has no mobile number/);
    }
  });

  it('a cc entry that is not an e-mail address is a 420 naming cc', async () => {
    const res = await (
      await asAcme(t, acme.host, 'admin')
    )
      .post('/api/messages')
      .send({ user_name: 'ola', title: 'x', text: 'y', cc: 'kari@acme.example,not-an-address' });
    expect(res.body.errorcode).toBe(420);
    expect(res.body.message).toMatch(/cc.*not-an-address/);
  });

  it('missing title is a 419, an unknown send_medium and a bad reply_to are 420', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    expect((await admin.post('/api/messages').send({ user_name: 'ola', text: 'y' })).body.errorcode).toBe(419);
    expect((await admin.post('/api/messages').send({ user_name: 'ola', title: 'x', text: 'y', send_medium: 'fax' })).body.errorcode).toBe(420);
    const bad = await admin.post('/api/messages').send({ user_name: 'ola', title: 'x', text: 'y', reply_to: 'nobody' });
    expect(bad.body).toMatchObject({ errorcode: 420, parameter: 'reply_to' });
  });

  it('reply_to=manager for a person with no manager above (admin) is a 420', async () => {
    const res = await (await asAcme(t, acme.host, 'admin')).post('/api/messages').send({ user_name: 'admin', title: 'x', text: 'y', reply_to: 'manager' });
    expect(res.body).toMatchObject({ errorcode: 420, parameter: 'reply_to' });
  });
});

describe("Security: superuser, person's manager, self", () => {
  it('anonymous callers get 401 on every call', async () => {
    const anon = client(t, acme.host);
    expect((await anon.get('/api/messages')).body.errorcode).toBe(401);
    expect((await anon.get('/api/messages/1')).body.errorcode).toBe(401);
    expect((await anon.post('/api/messages').send({ user_name: 'ola', title: 'x', text: 'y' })).body.errorcode).toBe(401);
  });

  it('ola may not send to or read messages of siri (403), nor read a message to nils', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    expect((await ola.post('/api/messages').send({ user_name: 'siri', title: 'x', text: 'y' })).body.errorcode).toBe(403);
    expect((await ola.get('/api/messages?user_name=siri')).body.errorcode).toBe(403);
    const admin = await asAcme(t, acme.host, 'admin');
    const sent = await admin.post('/api/messages').send({ user_name: 'nils', title: 'Private', text: 'For nils.' });
    expect((await ola.get(`/api/messages/${sent.body.messages[0].message_id}`)).body.errorcode).toBe(403);
  });

  it('kari (manager of Operations) reads messages to ola; ola reads her own list by default; the sender reads what they sent', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const sent = await admin.post('/api/messages').send({ user_name: 'ola', title: 'For ola', text: 'Hello.' });
    const id = sent.body.messages[0].message_id;
    const kari = await asAcme(t, acme.host, 'kari');
    expect((await kari.get(`/api/messages/${id}`)).body.messages[0].title).toBe('For ola');
    const own = await (await asAcme(t, acme.host, 'ola')).get('/api/messages?limit=100');
    expect(own.body.messages.map((m: any) => m.message_id)).toContain(id);
    expect(own.body.messages.every((m: any) => m.user_name === 'ola')).toBe(true);
    expect((await admin.get(`/api/messages/${id}`)).body.messages[0].sender_user_name).toBe('admin');
  });

  it('paging: limit=1 returns one message, limit=101 is served as 100, limit=-1 is a 420', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    expect((await admin.get('/api/messages?user_name=ola&limit=1')).body.messages).toHaveLength(1);
    expect((await admin.get('/api/messages?user_name=ola&limit=101')).body.message).toContain('served 100');
    expect((await admin.get('/api/messages?user_name=ola&limit=-1')).body.errorcode).toBe(420);
  });

  it("another tenant's message id is 404", async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const sent = await admin.post('/api/messages').send({ user_name: 'ola', title: 'Acme only', text: 'x' });
    const gAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', 'Globex-Admin-Pass-1'));
    expect((await gAdmin.get(`/api/messages/${sent.body.messages[0].message_id}`)).body.errorcode).toBe(404);
    expect((await gAdmin.get('/api/messages/999999')).body.errorcode).toBe(404);
  });
});
