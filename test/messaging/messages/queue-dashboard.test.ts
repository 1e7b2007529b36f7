import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestApp, type TestApp } from '../../support/test-app';

const TOKEN = 'operator-token-0123456789';
let withToken: TestApp;
let without: TestApp;

beforeAll(async () => {
  withToken = await createTestApp({ PLATFORM_ADMIN_TOKEN: TOKEN });
  without = await createTestApp();
});
afterAll(async () => {
  await withToken?.close();
  await without?.close();
});

describe('operators see the queues', () => {
  it('Bull Board answers only with the operator bearer token, and does not exist without PLATFORM_ADMIN_TOKEN', async () => {
    expect((await request(withToken.app).get('/platform/queues/api/queues')).status).toBe(401);
    expect((await request(withToken.app).get('/platform/queues/api/queues').set('Authorization', 'Bearer wrong-token-000000000')).status).toBe(401);
    const ok = await request(withToken.app).get('/platform/queues/api/queues').set('Authorization', `Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(JSON.stringify(ok.body)).toContain('mail-priority');
    expect((await request(without.app).get('/platform/queues/api/queues').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(404);
  });

  it('the dashboard gets no helmet headers (its page needs inline scripts); every other path does', async () => {
    const page = await request(withToken.app).get('/Platform/Queues/').set('Authorization', `Bearer ${TOKEN}`);
    expect(page.status).toBe(200);
    const refused = await request(withToken.app).get('/platform/queues/api/queues');
    for (const res of [page, refused]) {
      expect(res.headers['content-security-policy']).toBeUndefined();
      expect(res.headers['x-frame-options']).toBeUndefined();
    }
    for (const [app, path] of [
      [withToken.app, '/platform/queuesx'],
      [withToken.app, '/platform/tenants'],
      [without.app, '/platform/queues'],
    ] as const) {
      const res = await request(app).get(path);
      expect(res.headers['content-security-policy'], path).toContain("default-src 'self'");
      expect(res.headers['x-frame-options'], path).toBe('SAMEORIGIN');
    }
  });

  it('GET /readyz without the operator token says only ready or not, with any other token too', async () => {
    for (const app of [withToken.app, without.app]) {
      expect((await request(app).get('/readyz')).body).toEqual({ valid: true, message: 'ready' });
      expect((await request(app).get('/readyz').set('Authorization', `Bearer wrong-token-000000000`)).body).toEqual({ valid: true, message: 'ready' });
    }
    // without a configured token nobody gets the details, whatever they send
    expect((await request(without.app).get('/readyz').set('Authorization', `Bearer ${TOKEN}`)).body).toEqual({ valid: true, message: 'ready' });
  });

  it('GET /readyz with the operator token reports the checks and queue depth and failures per queue', async () => {
    const res = await request(withToken.app).get('/readyz').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.body.checks).toEqual({ postgres: 'ok', redis: 'ok' });
    expect(res.body.queues.messages).toMatchObject({ waiting: expect.any(Number), failed: expect.any(Number) });
    expect(res.body.queues['mail-priority']).toMatchObject({ waiting: expect.any(Number), failed: expect.any(Number) });
  });
});
