import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { TRANSACTION, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { OutboundEventData, OutboundEvents, OutboundEventType } from '../../platform/outbound/outbound-events';
import { WebhookSignal } from './webhook-signal';

/** Sent only by "send test event" (POST /api/webhooks/[id]/test), to that one endpoint. */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * Writes one event and a delivery for each endpoint, through `db` (the change's transaction).
 * The body is stored as the exact text that is signed and sent, so every retry is identical;
 * its uid is the webhook-id header.
 */
export async function writeWebhookEvent(
  db: TenantDb,
  tenant: Pick<Tenant, 'slug'>,
  type: string,
  data: Record<string, unknown>,
  endpointIds: number[],
): Promise<{ eventId: number; uid: string }> {
  const uid = `msg_${randomUUID().replace(/-/g, '')}`;
  const body = JSON.stringify({ type, timestamp: new Date().toISOString(), tenant: tenant.slug, data });
  const [row] = await db.table('webhook_events').insert({ uid, type, body }).returning('id');
  const eventId = Number(row.id);
  await db.table('webhook_deliveries').insert(endpointIds.map((endpoint_id) => ({ event_id: eventId, endpoint_id })));
  return { eventId, uid };
}

/**
 * The webhooks feature's OutboundEvents: an event goes to every enabled endpoint of the tenant
 * subscribed to its type. Without one, nothing is written (one read of the small endpoints table per change).
 * Bound to one transaction (tx.get): the first event written wakes the relay after the commit.
 */
@injectable()
export class WebhookEventWriter implements OutboundEvents {
  private wrote = false;
  /** Endpoint reads started by expect(), per type. */
  private readonly early = new Map<OutboundEventType, Promise<{ id: number }[]>>();

  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TRANSACTION) private readonly tx: Transaction,
    @inject(WebhookSignal) private readonly signal: WebhookSignal,
  ) {}

  private endpoints(type: OutboundEventType): Promise<{ id: number }[]> {
    return this.db
      .table('webhook_endpoints')
      .where('enabled', true)
      .whereRaw('? = any(events)', [type])
      .select('id')
      .then((rows: { id: number }[]) => rows);
  }

  expect(type: OutboundEventType): void {
    const read = this.endpoints(type);
    read.catch(() => undefined); // a failure is met again by record(); unasked, it is no unhandled rejection
    this.early.set(type, read);
  }

  async record(type: OutboundEventType, data: OutboundEventData): Promise<void> {
    const early = this.early.get(type);
    this.early.delete(type);
    const endpoints = await (early ?? this.endpoints(type));
    if (endpoints.length === 0) return;
    const resolved = typeof data === 'function' ? await data() : data;
    if (!resolved) return;
    await this.writeTo(
      type,
      resolved,
      endpoints.map((e) => e.id),
    );
  }

  /** One event to the endpoints named (the test event goes to one endpoint, whatever it subscribes to). */
  async writeTo(type: string, data: Record<string, unknown>, endpointIds: number[]): Promise<{ eventId: number; uid: string }> {
    const written = await writeWebhookEvent(this.db, this.tenant, type, data, endpointIds);
    if (!this.wrote) this.tx.afterCommit(() => this.signal.notify(this.tenant.id));
    this.wrote = true;
    return written;
  }
}
