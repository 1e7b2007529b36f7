import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineJob, PermanentJobError } from '../../platform/queue/job-definition';
import { openTenantScope } from '../../platform/tenancy/request-scope';
import { TenantResolver } from '../../platform/tenancy/tenant-resolver';
import { DeliveryService } from './delivery.service';
import { TemporaryDeliveryError } from './delivery-errors';
import { bumpSharedCounter } from '../../platform/metrics/shared-counters';

/** Deliveries per batch job: one claim, one UPDATE of the rows sent, one BullMQ job for all of them. */
export const DELIVERIES_PER_JOB = 50;

export const DeliverBatch = z.object({
  tenantId: z.number().int(),
  /** One tenant's deliveries, in id order. */
  deliveryIds: z.array(z.number().int()).min(1).max(1000),
});
export type DeliverBatch = z.infer<typeof DeliverBatch>;

/**
 * Job id: the tenant and its rows as the relay saw them (id and updated_at), so the relay adding
 * the same batch again (a crash between the add and the mark) is a no-op, while rows that changed
 * since (set back to queued by an operator's retry) make a new job: BullMQ ignores an add whose id
 * it still holds, completed jobs included. A batch that differs is a new job; the claim keeps a row
 * from being sent by two jobs at once.
 */
export function deliverBatchJobId(tenantId: number, rows: readonly { id: number; updatedAt: Date }[]): string {
  const digest = createHash('sha1').update(rows.map((r) => `${r.id}@${r.updatedAt.getTime()}`).join(',')).digest('base64url').slice(0, 16);
  return `t${tenantId}-b${rows[0].id}-${rows.length}-${digest}`;
}

/**
 * Sends a batch of one tenant's new deliveries. Each row's outcome is its own (DeliveryService.deliverMany):
 * rows sent are never sent again by this job's retries (the claim skips them); rows that failed
 * temporarily are set back to queued and the job is retried with backoff; when BullMQ's attempts
 * run out, the relay's reconciliation relays them again one job per row.
 */
export const deliverBatchJob = defineJob('messages.deliver-batch', DeliverBatch, async (root, data) => {
  const tenant = await root.resolve(TenantResolver).byTenantId(data.tenantId);
  if (!tenant) throw new PermanentJobError(`tenant ${data.tenantId} no longer exists`);
  const { outcomes, failedMedia, unexpected } = await openTenantScope(root, tenant).resolve(DeliveryService).deliverMany(data.deliveryIds);
  for (const medium of failedMedia) await bumpSharedCounter(root, 'delivery-failures', [tenant.slug, medium]);
  if (unexpected) throw unexpected;
  const retry = [...outcomes].filter(([, o]) => o === 'retry').map(([id]) => id);
  if (retry.length) throw new TemporaryDeliveryError(`deliveries ${retry.join(', ')} will be retried`);
});
