import dns from 'node:dns';
import type { DependencyContainer } from 'tsyringe';
import { OUTBOUND_EVENTS } from '../platform/outbound/outbound-events';
import { BACKGROUND_WORKERS } from '../platform/queue/worker-runtime';
import { TENANT_PURGERS } from '../tenants/tenant-purger';
import { WebhookEventWriter } from './webhook-event-writer';
import { WebhookRelay } from './webhook-relay';
import { WebhookSignalPurger } from './webhook-signal-purger';
import { WebhookTargets, WEBHOOK_DNS_LOOKUP } from './webhook-targets';
import { DEFAULT_WEBHOOK_TIMING, WEBHOOK_TIMING } from './webhook-timing';

export { webhookRoutes } from './webhooks.routes';
export { deliverWebhookJob } from './deliver-webhook.job';

/** Everything the webhooks feature plugs into a container (called by registerFeatures). */
export function registerWebhooks(c: DependencyContainer): void {
  c.register(WEBHOOK_TIMING, { useValue: DEFAULT_WEBHOOK_TIMING });
  c.register(WEBHOOK_DNS_LOOKUP, { useValue: dns.lookup });
  // one per container: it holds the http agents
  c.registerSingleton(WebhookTargets);
  // resolved per tenant scope (it injects TENANT), a fresh one each time
  c.register(OUTBOUND_EVENTS, { useClass: WebhookEventWriter });
  c.register(BACKGROUND_WORKERS, { useClass: WebhookRelay });
  c.register(TENANT_PURGERS, { useClass: WebhookSignalPurger });
}
