import { createHash } from 'node:crypto';
import { z } from 'zod';

/*
 * The two delivery jobs as the relay adds them to the queues: their names, data and ids. The
 * workers' handlers are src/flows/messages/deliver-messages.ts (a password mail's password is people's).
 */

/** One delivery, relayed again by the reconciliation (its earlier job vanished, gave up or was cut off). */
export const DELIVER_MESSAGE_JOB = 'messages.deliver';
export const DeliverMessage = z.object({
  tenantId: z.number().int(),
  messageId: z.number().int(),
  deliveryId: z.number().int(),
  medium: z.enum(['email', 'sms']),
});
export type DeliverMessage = z.infer<typeof DeliverMessage>;

/** Job id: one per tenant, message and medium, so adding it again is a no-op. */
export function deliverJobId(d: DeliverMessage): string {
  return `t${d.tenantId}-m${d.messageId}-${d.medium}`;
}

/** New deliveries of one tenant, sent by one job. */
export const DELIVER_BATCH_JOB = 'messages.deliver-batch';

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
  const digest = createHash('sha1')
    .update(rows.map((r) => `${r.id}@${r.updatedAt.getTime()}`).join(','))
    .digest('base64url')
    .slice(0, 16);
  return `t${tenantId}-b${rows[0].id}-${rows.length}-${digest}`;
}
