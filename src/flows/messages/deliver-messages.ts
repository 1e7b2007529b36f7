import { inject, injectable } from 'tsyringe';
import { defineJob, PermanentJobError } from '../../platform/queue/job-definition';
import { openTenantScope } from '../../platform/tenant-scope/request-scope';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import { bumpSharedCounter } from '../../platform/metrics/shared-counters';
import { PendingPasswords } from '../../people';
import {
  DELIVER_BATCH_JOB,
  DELIVER_MESSAGE_JOB,
  DeliverBatch,
  DeliverMessage,
  DeliveryService,
  TemporaryDeliveryError,
  type BatchOutcome,
  type DeliveryNeeds,
  type DeliveryOutcome,
} from '../../messaging';
import { recordMessageFailed } from './message-failed';

/**
 * Sending what the relay hands the workers: messaging's DeliveryService sends; a password mail's
 * password is made at send time and kept as people's pending password of that delivery; a delivery
 * given up gets its message.failed event, which names the recipient.
 */
@injectable()
export class DeliverMessagesFlow {
  private readonly needs: DeliveryNeeds;

  constructor(
    @inject(DeliveryService) private readonly delivery: DeliveryService,
    @inject(PendingPasswords) passwords: PendingPasswords,
  ) {
    this.needs = { newPassword: (personId, deliveryId, requestedAt) => passwords.issue(personId, deliveryId, requestedAt), failed: recordMessageFailed };
  }

  deliver(deliveryId: number): Promise<DeliveryOutcome> {
    return this.delivery.deliver(deliveryId, this.needs);
  }

  deliverMany(deliveryIds: readonly number[]): Promise<BatchOutcome> {
    return this.delivery.deliverMany(deliveryIds, this.needs);
  }
}

/** A delivery relayed again by the reconciliation, one job per row. */
export const deliverMessageJob = defineJob(DELIVER_MESSAGE_JOB, DeliverMessage, async (root, data) => {
  const tenant = await root.resolve(TenantResolver).byTenantId(data.tenantId);
  if (!tenant) throw new PermanentJobError(`tenant ${data.tenantId} no longer exists`);
  const outcome = await openTenantScope(root, tenant).resolve(DeliverMessagesFlow).deliver(data.deliveryId);
  if (outcome === 'failed') await bumpSharedCounter(root, 'delivery-failures', [tenant.slug, data.medium]);
  // Throwing makes BullMQ retry with backoff; the row already says why.
  if (outcome === 'retry') throw new TemporaryDeliveryError(`delivery ${data.deliveryId} will be retried`);
});

/**
 * Sends a batch of one tenant's new deliveries. Each row's outcome is its own (DeliveryService.deliverMany):
 * rows sent are never sent again by this job's retries (the claim skips them); rows that failed
 * temporarily are set back to queued and the job is retried with backoff; when BullMQ's attempts
 * run out, the relay's reconciliation relays them again one job per row.
 */
export const deliverBatchJob = defineJob(DELIVER_BATCH_JOB, DeliverBatch, async (root, data) => {
  const tenant = await root.resolve(TenantResolver).byTenantId(data.tenantId);
  if (!tenant) throw new PermanentJobError(`tenant ${data.tenantId} no longer exists`);
  const { outcomes, failedMedia, unexpected } = await openTenantScope(root, tenant).resolve(DeliverMessagesFlow).deliverMany(data.deliveryIds);
  for (const medium of failedMedia) await bumpSharedCounter(root, 'delivery-failures', [tenant.slug, medium]);
  if (unexpected) throw unexpected;
  const retry = [...outcomes].filter(([, o]) => o === 'retry').map(([id]) => id);
  if (retry.length) throw new TemporaryDeliveryError(`deliveries ${retry.join(', ')} will be retried`);
});
