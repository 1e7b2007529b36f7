import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';

let t: TestApp;
let acme: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => {
  await t?.close();
});

describe('foundation', () => {
  it('answers an unknown host with the 404 envelope', async () => {
    const res = await request(t.app).get('/api/configitems/cors.origins').set('Host', 'nobody.example');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ valid: false, errorcode: 404 });
    expect(res.body.message).toMatch(/unknown tenant/);
  });

  it('asks for a login before returning a config item', async () => {
    const res = await client(t, acme.host).get('/api/configitems/cors.origins');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ valid: false, errorcode: 401, message: 'not logged in' });
  });

  it('answers an unknown API path with a 404 envelope', async () => {
    const res = await client(t, acme.host).get('/api/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ valid: false, errorcode: 404 });
  });

  it('reports liveness and readiness', async () => {
    expect((await request(t.app).get('/healthz')).body).toEqual({ valid: true, message: 'alive' });
    const ready = await request(t.app).get('/readyz');
    expect(ready.status).toBe(200);
    // the details are the operator's (test/messaging/messages/queue-dashboard.test.ts)
    expect(ready.body).toEqual({ valid: true, message: 'ready' });
  });

  it('echoes an incoming X-Request-Id', async () => {
    const res = await client(t, acme.host).get('/api/configitems/cors.origins').set('X-Request-Id', 'abc-123');
    expect(res.headers['x-request-id']).toBe('abc-123');
  });
});
