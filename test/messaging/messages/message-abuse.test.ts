import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { REDIS } from '../../../src/platform/tokens';

let t: TestApp;
let acme: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => {
  await t?.close();
});

const message = (extra: Record<string, unknown> = {}) => ({ user_name: 'ola', title: 'Hello', text: 'Body', ...extra });

describe('POST /api/messages cannot be used as a mail relay', () => {
  it('cc with more than messages.max_cc addresses is a 420 naming cc; exactly the maximum is accepted', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    expect((await admin.put('/api/configitems/messages.max_cc').send({ value: 2 })).status).toBe(200);
    const tooMany = await admin.post('/api/messages').send(message({ cc: 'a@x.example, b@x.example, c@x.example' }));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ valid: false, errorcode: 420, parameter: 'cc' });
    expect(tooMany.body.message).toContain('messages.max_cc');
    const ok = await admin.post('/api/messages').send(message({ cc: 'a@x.example, b@x.example' }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('the default max_cc is 10', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    await admin.put('/api/configitems/messages.max_cc').send({ value: null });
    const eleven = Array.from({ length: 11 }, (_, i) => `p${i}@x.example`).join(',');
    const res = await admin.post('/api/messages').send(message({ cc: eleven }));
    expect(res.body).toMatchObject({ errorcode: 420, parameter: 'cc' });
  });

  it.each([
    ['title', { title: 'Hi\r\nBcc: victim@x.example' }],
    ['title', { title: 'Hi\nthere' }],
    ['cc', { cc: 'a@x.example\r\nBcc: victim@x.example' }],
    ['reply_to', { reply_to: 'a@x.example\nBcc: victim@x.example' }],
    ['reply_to', { reply_to: 'a@x.example\rX: y' }],
  ])('a CR or LF in %s is a 420 naming it', async (param, extra) => {
    const admin = await asAcme(t, acme.host, 'admin');
    const res = await admin.post('/api/messages').send(message(extra));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(res.body.message).toContain(param);
  });
});

describe('messages.max_per_hour_per_sender', () => {
  it('a non-superuser past the hourly limit gets 429 with Retry-After; a superuser is not limited', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    expect((await admin.put('/api/configitems/messages.max_per_hour_per_sender').send({ value: 3 })).status).toBe(200);
    const ola = await asAcme(t, acme.host, 'ola');
    for (let i = 0; i < 3; i++) {
      const r = await ola.post('/api/messages').send(message({ title: `note ${i}` }));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    const fourth = await ola.post('/api/messages').send(message({ title: 'one too many' }));
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({ valid: false, errorcode: 429 });
    const retryAfter = Number(fourth.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);

    // superusers send announcements: never counted
    for (let i = 0; i < 5; i++) {
      const r = await admin.post('/api/messages').send(message({ title: `announcement ${i}` }));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
  });

  it('the counter is per tenant: keys live under the tenant prefix', async () => {
    const keys = await t.container.resolve(REDIS).keys(`t:${acme.tenantId}:rl:messages-per-sender:*`);
    expect(keys.length).toBe(1);
  });
});
