import { z } from 'zod';
import { defineJob, PermanentJobError, RetryAfterError } from '../../platform/queue/job-definition';
import { openTenantScope } from '../../platform/tenant-scope/request-scope';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import { WebhookDeliverer } from './webhook-deliverer';

export const DeliverWebhook = z.object({ tenantId: z.number().int(), deliveryId: z.number().int() });
export type DeliverWebhook = z.infer<typeof DeliverWebhook>;

/** Job id: one per tenant and delivery, so relaying it again is a no-op while the job is kept. */
export function webhookJobId(d: DeliverWebhook): string {
  return `t${d.tenantId}-wd${d.deliveryId}`;
}

/**
 * One attempt of one delivery. A failed attempt that may be retried throws RetryAfterError
 * with the wait of the delivery's schedule, which the job workers use as the backoff.
 */
export const deliverWebhookJob = defineJob('webhooks.deliver', DeliverWebhook, async (root, data) => {
  const tenant = await root.resolve(TenantResolver).byTenantId(data.tenantId);
  if (!tenant) throw new PermanentJobError(`tenant ${data.tenantId} no longer exists`);
  const r = await openTenantScope(root, tenant).resolve(WebhookDeliverer).deliver(data.deliveryId);
  if (r.outcome === 'retry') throw new RetryAfterError(`webhook delivery ${data.deliveryId} will be retried: ${r.error}`, r.retryInMs);
});
