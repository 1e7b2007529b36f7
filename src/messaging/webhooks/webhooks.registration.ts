import dns from 'node:dns';
import type { DependencyContainer } from 'tsyringe';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';
import { BACKGROUND_WORKERS } from '../../platform/queue/worker-runtime';
import { JOBS, QUEUES } from '../../platform/queue/job-definition';
import { TENANT_PURGERS } from '../../platform/tenant-scope/tenant-purgers';
import { WebhookEventWriter } from './webhook-event-writer';
import { WebhookRelay, WEBHOOK_QUEUE, WEBHOOK_TENANT_SLOTS } from './webhook-relay';
import { WebhookSignalPurger } from './webhook-signal-purger';
import { WebhookTargets, WEBHOOK_DNS_LOOKUP } from './webhook-targets';
import { DEFAULT_WEBHOOK_TIMING, WEBHOOK_TIMING, type WebhookTiming } from './webhook-timing';
import { deliverWebhookJob } from './deliver-webhook.job';
import { PERSON_DATA } from '../../platform/privacy/personal-data';
import { WebhookEventPersonalData } from './webhook-personal-data';

/** Everything the webhooks feature plugs into a container (messaging's index.ts calls it). */
export function registerWebhooks(c: DependencyContainer): void {
  c.register(WEBHOOK_TIMING, { useValue: DEFAULT_WEBHOOK_TIMING });
  c.register(WEBHOOK_DNS_LOOKUP, { useValue: dns.lookup });
  // one per container: it holds the http agents
  c.registerSingleton(WebhookTargets);
  // the kernel's port for "tell the outside world": resolved per tenant scope (it injects TENANT), a fresh one each time
  c.register(OUTBOUND_EVENTS, { useClass: WebhookEventWriter });
  c.register(BACKGROUND_WORKERS, { useClass: WebhookRelay });
  // fair between tenants: a tenant past its share waits about one attempt timeout before its job is tried again
  c.register(QUEUES, {
    useFactory: (r) => ({ ...WEBHOOK_QUEUE, tenantShare: { slots: WEBHOOK_TENANT_SLOTS, deferMs: r.resolve<WebhookTiming>(WEBHOOK_TIMING).timeoutMs } }),
  });
  c.register(JOBS, { useValue: deliverWebhookJob });
  c.register(TENANT_PURGERS, { useClass: WebhookSignalPurger });
  // erasure rewrites the event bodies that name the person
  c.register(PERSON_DATA, { useClass: WebhookEventPersonalData });
}
