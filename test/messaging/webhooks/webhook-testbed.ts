import { expect } from 'vitest';
import { createTestApp, importDemoTenant } from '../../support/test-app';
import type { asAcme } from '../../support/login';
import { startTestWorkers } from '../messages/delivery-peers';
import { startWebhookReceiver } from './webhook-receiver';
import { WEBHOOK_TIMING, DEFAULT_WEBHOOK_TIMING, type WebhookTiming } from '../../../src/messaging/webhooks/webhook-timing';
import { OUTBOUND_EVENT_TYPES } from '../../../src/platform/outbound/outbound-events';
import type { RelayTiming } from '../../../src/messaging/outbox/relay-timing';

export type Admin = Awaited<ReturnType<typeof asAcme>>;

/**
 * The app with two tenants made from the same document, a receiver on loopback (allowed by
 * WEBHOOKS_ALLOW_PRIVATE_TARGETS=1; the address checks have their own test file) and workers.
 * `relay`: the relays' timing over the defaults (sweep hourly, in-flight tenants every 2 minutes);
 * by default a sweep every 500 ms, so lost jobs are found at once. `timing`: over the compressed schedule.
 */
export async function startWebhookTestbed(relay: Partial<RelayTiming> = { sweepMs: 500 }, timing: Partial<WebhookTiming> = {}) {
  const receiver = await startWebhookReceiver();
  const t = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' });
  // production's schedule (5 s, 30 s, ...) compressed; ages (24 h, 5 days) as in production
  t.container.register(WEBHOOK_TIMING, { useValue: { ...DEFAULT_WEBHOOK_TIMING, timeoutMs: 1500, retryDelaysMs: [300, 600, 1200], ...timing } });
  const [acme, other] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'acme')]);
  const workers = await startTestWorkers(t.container, [acme.tenantId, other.tenantId], undefined, relay);
  return {
    t,
    acme,
    other,
    receiver,
    /** A new endpoint at the receiver's `path`, whose requests the receiver verifies with its secret. */
    async createEndpoint(admin: Admin, path: string, events: readonly string[] = OUTBOUND_EVENT_TYPES) {
      const res = await admin.post('/api/webhooks').send({ url: receiver.url(path), events, description: `receiver ${path}` });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const w = res.body.webhooks[0];
      receiver.expect(path, w.secret);
      return w as { webhook_id: number; secret: string };
    },
    /** GET /api/webhooks/[id]/deliveries. */
    async attempts(admin: Admin, id: number) {
      const res = await admin.get(`/api/webhooks/${id}/deliveries`);
      expect(res.status).toBe(200);
      return res.body.deliveries as any[];
    },
    async stop() {
      await workers.stop();
      await t.close();
      await receiver.close();
    },
  };
}

export type WebhookTestbed = Awaited<ReturnType<typeof startWebhookTestbed>>;
