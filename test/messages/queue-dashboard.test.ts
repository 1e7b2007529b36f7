import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestApp, type TestApp } from '../support/test-app';

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

  it('GET /readyz reports queue depth and failures per queue', async () => {
    const res = await request(without.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body.queues.messages).toMatchObject({ waiting: expect.any(Number), failed: expect.any(Number) });
    expect(res.body.queues['mail-priority']).toMatchObject({ waiting: expect.any(Number), failed: expect.any(Number) });
  });
});
