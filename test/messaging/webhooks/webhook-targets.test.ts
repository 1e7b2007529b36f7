import net from 'node:net';
import type dns from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { startTestWorkers, waitFor } from '../messages/delivery-peers';
import { tenantDb } from '../../courses/events/events-support';
import { WEBHOOK_DNS_LOOKUP, isPublicAddress } from '../../../src/messaging/webhooks/webhook-targets';
import { DEFAULT_WEBHOOK_TIMING, nextDelayMs } from '../../../src/messaging/webhooks/webhook-timing';

// A documentation-free public address that the test only ever *resolves* to, never connects to:
// the lookup below answers it while an endpoint is being saved, and loopback afterwards.
const PUBLIC = '93.184.216.34';

let t: TestApp;
let acme: DemoTenant;
let workers: Awaited<ReturnType<typeof startTestWorkers>> | undefined;
let trap: net.Server;
let trapConnections = 0;
let trapPort: number;
/** While true, rebind.example.test resolves to a public address; afterwards to 127.0.0.1. */
let saving = true;
const lookups: string[] = [];

/** A DNS server that changes its answer between the check on save and the connect (DNS rebinding). */
const rebindingLookup = ((host: string, options: any, cb: any) => {
  const callback = typeof options === 'function' ? options : cb;
  const all = typeof options === 'object' && options?.all;
  const address = host === 'rebind.example.test' && saving ? PUBLIC : '127.0.0.1';
  lookups.push(`${host}=${address}`);
  if (all) callback(null, [{ address, family: 4 }]);
  else callback(null, address, 4);
}) as unknown as typeof dns.lookup;

beforeAll(async () => {
  // a loopback port that counts connections: nothing may ever reach it
  trap = net.createServer((s) => {
    trapConnections++;
    s.destroy();
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapPort = (trap.address() as net.AddressInfo).port;
  t = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: '0' });
  t.container.register(WEBHOOK_DNS_LOOKUP, { useValue: rebindingLookup });
  acme = await importDemoTenant(t, 'acme');
  workers = await startTestWorkers(t.container, [acme.tenantId]);
});

afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await new Promise<void>((resolve) => trap.close(() => resolve()));
});

describe('webhook targets without WEBHOOKS_ALLOW_PRIVATE_TARGETS', () => {
  it('refuses http and non-public addresses when an endpoint is saved', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const refused = async (url: string) => (await admin.post('/api/webhooks').send({ url, events: ['person.updated'] })).body;
    expect(await refused(`http://rebind.example.test:${trapPort}/hook`)).toMatchObject({
      errorcode: 420,
      parameter: 'url',
      message: expect.stringContaining('must be https'),
    });
    for (const url of [
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://169.254.169.254/latest',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://100.64.0.1/x',
    ]) {
      expect(await refused(url), url).toMatchObject({ errorcode: 420, parameter: 'url', message: expect.stringContaining('is a non-public address') });
    }
    // a name is resolved: localhost answers 127.0.0.1
    // the refusal names the host, never the address it resolves to (issue 40)
    const local = await refused('https://localhost/x');
    expect(local).toMatchObject({ errorcode: 420, message: expect.stringContaining('localhost resolves to a non-public address') });
    expect(local.message).not.toContain('127.0.0.1');
    const w = (await admin.post('/api/webhooks').send({ url: `https://rebind.example.test:${trapPort}/hook`, events: ['person.updated'] })).body.webhooks[0];
    expect(w.url).toBe(`https://rebind.example.test:${trapPort}/hook`);
    expect((await admin.put(`/api/webhooks/${w.webhook_id}`).send({ url: 'https://192.168.1.10/x' })).body).toMatchObject({ errorcode: 420, parameter: 'url' });
    await admin.delete(`/api/webhooks/${w.webhook_id}`);
    expect(trapConnections).toBe(0);
  });

  it('checks the address again when connecting, so a name rebound to loopback is refused before any byte is sent', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    saving = true;
    const w = (await admin.post('/api/webhooks').send({ url: `https://rebind.example.test:${trapPort}/hook`, events: ['person.updated'] })).body.webhooks[0];
    expect(w.enabled).toBe(true);
    saving = false;
    await admin.post(`/api/webhooks/${w.webhook_id}/test`);
    const a = await waitFor('refused attempt', async () => (await admin.get(`/api/webhooks/${w.webhook_id}/deliveries`)).body.deliveries[0]);
    expect(a).toMatchObject({ attempt: 1, status_code: null, delivery_state: 'pending' });
    expect(a.error).toBe('refused: rebind.example.test resolves to a non-public address (WEBHOOKS_ALLOW_PRIVATE_TARGETS is off)');
    expect(lookups).toContain('rebind.example.test=127.0.0.1');
    expect(trapConnections).toBe(0);
    await admin.delete(`/api/webhooks/${w.webhook_id}`);
  });

  it('refuses at connect time a stored loopback or http URL (saved while the operator allowed private targets)', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const db = tenantDb(t, acme);
    for (const [url, error] of [
      [`https://127.0.0.1:${trapPort}/hook`, /^refused: 127\.0\.0\.1 is a non-public address \(WEBHOOKS_ALLOW_PRIVATE_TARGETS is off\)$/],
      [`http://rebind.example.test:${trapPort}/hook`, /^refused: the endpoint URL must be https/],
    ] as const) {
      saving = true;
      const w = (await admin.post('/api/webhooks').send({ url: `https://rebind.example.test:${trapPort}/x`, events: ['person.updated'] })).body.webhooks[0];
      saving = false;
      await db.table('webhook_endpoints').where({ id: w.webhook_id }).update({ url });
      await admin.post(`/api/webhooks/${w.webhook_id}/test`);
      const a = await waitFor('refused attempt', async () => (await admin.get(`/api/webhooks/${w.webhook_id}/deliveries`)).body.deliveries[0]);
      expect(a.error, url).toMatch(error);
      await admin.delete(`/api/webhooks/${w.webhook_id}`);
    }
    expect(trapConnections).toBe(0);
  });
});

describe('address ranges and the retry schedule', () => {
  it('only routable unicast addresses count as public', () => {
    for (const a of ['93.184.216.34', '2606:4700::1111', '::ffff:93.184.216.34']) expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
      '192.0.2.1',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  it('retries first within 10 s, then less and less often, with the last attempt at the 24 h deadline', () => {
    const created = new Date('2030-01-01T00:00:00Z');
    let now = created.getTime();
    const waits: number[] = [];
    for (let attempts = 1; ; attempts++) {
      const d = nextDelayMs(DEFAULT_WEBHOOK_TIMING, attempts, created, now);
      if (d === null) break;
      waits.push(d);
      now += d;
    }
    expect(waits[0]).toBeLessThanOrEqual(10_000);
    expect(waits.slice(0, 8)).toEqual([...waits.slice(0, 8)].sort((x, y) => x - y));
    expect(now - created.getTime()).toBe(24 * 3600_000);
    expect(waits.length).toBeLessThan(20);
  });
});
