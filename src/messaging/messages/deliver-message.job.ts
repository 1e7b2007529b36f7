import { z } from 'zod';
import { defineJob, PermanentJobError } from '../../platform/queue/job-definition';
import { openTenantScope } from '../../platform/tenancy/request-scope';
import { TenantResolver } from '../../platform/tenancy/tenant-resolver';
import { DeliveryService } from './delivery.service';
import { TemporaryDeliveryError } from './delivery-errors';
import { bumpSharedCounter } from '../../platform/metrics/shared-counters';

export const DeliverMessage = z.object({ tenantId: z.number().int(), messageId: z.number().int(), deliveryId: z.number().int(), medium: z.enum(['email', 'sms']) });
export type DeliverMessage = z.infer<typeof DeliverMessage>;

/** Job id: one per tenant, message and medium, so adding it again is a no-op. */
export function deliverJobId(d: DeliverMessage): string {
  return `t${d.tenantId}-m${d.messageId}-${d.medium}`;
}

export const deliverMessageJob = defineJob('messages.deliver', DeliverMessage, async (root, data) => {
  const tenant = await root.resolve(TenantResolver).byTenantId(data.tenantId);
  if (!tenant) throw new PermanentJobError(`tenant ${data.tenantId} no longer exists`);
  const outcome = await openTenantScope(root, tenant).resolve(DeliveryService).deliver(data.deliveryId);
  if (outcome === 'failed') await bumpSharedCounter(root, 'delivery-failures', [tenant.slug, data.medium]);
  // Throwing makes BullMQ retry with backoff; the row already says why.
  if (outcome === 'retry') throw new TemporaryDeliveryError(`delivery ${data.deliveryId} will be retried`);
});
