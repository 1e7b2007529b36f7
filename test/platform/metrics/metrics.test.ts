import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { QueueRegistry } from '../../../src/platform/queue/queue-registry';

const TOKEN = 'metrics-test-operator-token';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;

beforeAll(async () => {
  t = await createTestApp({ PLATFORM_ADMIN_TOKEN: TOKEN });
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
});
afterAll(async () => {
  await t?.container.resolve(QueueRegistry).close();
  await t?.close();
});

/** The value of one sample in the Prometheus text format, e.g. sample(text, 'x_total{tenant="a"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(): Promise<string> {
  const res = await request(t.app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  return res.text;
}

describe('GET /metrics', () => {
  it('counts requests per tenant, labels durations by route template and counts failed logins', async () => {
    const acmeCookie = await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin);
    const acmeApi = client(t, acme.host, acmeCookie);
    await acmeApi.get('/api/configitems/mail.from').expect(200);
    await acmeApi.get('/api/configitems/cors.origins').expect(200);
    await client(t, acme.host).post('/api/login').send({ user_name: 'admin', password: 'not-the-password', login: 1 }).expect(401);
    await client(t, acme.host).post('/api/login').send({ user_name: 'nobody', password: 'whatever', login: 1 }).expect(401);
    const globexCookie = await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin);
    // No worker runs in this app, so the message stays undelivered in globex's outbox.
    const sent = await client(t, globex.host, globexCookie)
      .post('/api/messages')
      .send({ user_name: 'homer', title: 'Shift', text: 'See the plan.', send_medium: 'sms' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);

    const text = await scrape();
    // acme: one good login, two reads, two failed logins; globex: one login.
    expect(sample(text, `tenant_http_requests_total{tenant="${acme.slug}"}`)).toBe(5);
    expect(sample(text, `tenant_http_requests_total{tenant="${globex.slug}"}`)).toBe(2);
    expect(sample(text, `outbox_oldest_undelivered_age_seconds{tenant="${globex.slug}"}`)).toBeGreaterThan(0);
    expect(sample(text, `outbox_oldest_undelivered_age_seconds{tenant="${acme.slug}"}`)).toBe(0);
    expect(sample(text, `login_failures_total{tenant="${acme.slug}"}`)).toBe(2);
    expect(sample(text, `login_failures_total{tenant="${globex.slug}"}`)).toBeUndefined();
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/api/configitems/:config_item_id",status="200"}')).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count{method="POST",route="/api/login",status="401"}')).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count{method="POST",route="/api/login",status="200"}')).toBe(2);
  });

  it('labels requests that match no route as unmatched', async () => {
    await client(t, acme.host).get('/api/no-such-call').expect(404);
    const text = await scrape();
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1);
  });

  it('shows DB pool usage, queue depth, outbox age and the Node process metrics', async () => {
    const text = await scrape();
    expect(sample(text, 'db_pool_used_connections{pool="platform"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'db_pool_free_connections{pool="tenants-0"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'db_pool_pending_acquires{pool="platform"}')).toBe(0);
    expect(sample(text, 'db_pool_max_connections{pool="platform"}')).toBe(t.env.DATABASE_POOL_MAX);
    // the tenant connections are split into groups (tenant-affine), together about DATABASE_POOL_MAX
    const groups = Array.from({ length: t.env.DATABASE_POOL_GROUPS }, (_, i) => sample(text, `db_pool_max_connections{pool="tenants-${i}"}`));
    expect(groups).toEqual(groups.map(() => Math.ceil(t.env.DATABASE_POOL_MAX / t.env.DATABASE_POOL_GROUPS)));
    expect(sample(text, 'queue_jobs{queue="messages",state="waiting"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'queue_jobs{queue="mail-priority",state="failed"}')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('# TYPE message_delivery_failures_total counter');
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('answers 401 without the operator token or with a wrong one', async () => {
    const none = await request(t.app).get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ valid: false, errorcode: 401 });
    const wrong = await request(t.app).get('/metrics').set('Authorization', 'Bearer wrong-token-of-some-length');
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('tenant_http_requests_total');
  });
});

describe('GET /metrics without PLATFORM_ADMIN_TOKEN', () => {
  it('does not exist (404), whatever token is sent', async () => {
    const bare = await createTestApp();
    try {
      const res = await request(bare.app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ valid: false, errorcode: 404 });
    } finally {
      await bare.close();
    }
  });
});
