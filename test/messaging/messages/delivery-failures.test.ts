import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { startTestWorkers, waitFor } from './delivery-peers';
import { Metrics } from '../../../src/platform/metrics/metrics';

let t: TestApp;
let globex: DemoTenant;
let workers: Awaited<ReturnType<typeof startTestWorkers>>;

beforeAll(async () => {
  // No TWILIO_* settings: every SMS delivery fails permanently ("not configured"). No operator
  // token either: with one, the queue dashboard opens the queues before the test workers get
  // their own prefix; the registry is read directly (test/platform/metrics/metrics.test.ts covers GET /metrics).
  t = await createTestApp();
  globex = await importDemoTenant(t, 'globex');
  workers = await startTestWorkers(t.container, [globex.tenantId]);
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

async function metric(series: string): Promise<number | undefined> {
  const text = await t.container.resolve(Metrics).registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('delivery failures metric', () => {
  it('counts a delivery that ended failed, by tenant and medium', async () => {
    const cookie = await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin);
    const sent = await client(t, globex.host, cookie)
      .post('/api/messages')
      .send({ user_name: 'homer', title: 'Shift', text: 'See the plan.', send_medium: 'sms' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const series = `message_delivery_failures_total{tenant="${globex.slug}",medium="sms"}`;
    expect(await waitFor('the failed SMS delivery', () => metric(series))).toBe(1);
  });
});
