import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenancy/tenant';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Transaction } from '../../platform/tenancy/unit-of-work';
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
 */
@injectable()
export class WebhookEventWriter implements OutboundEvents {
  private wrote = false;
  /** Endpoint reads started by expect(), per transaction and type. */
  private readonly early = new WeakMap<Transaction, Map<OutboundEventType, Promise<{ id: number }[]>>>();

  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(WebhookSignal) private readonly signal: WebhookSignal,
  ) {}

  private endpoints(db: TenantDb, type: OutboundEventType): Promise<{ id: number }[]> {
    return db.table('webhook_endpoints').where('enabled', true).whereRaw('? = any(events)', [type]).select('id').then((rows: { id: number }[]) => rows);
  }

  expect(tx: Transaction, type: OutboundEventType): void {
    const read = this.endpoints(tx.db, type);
    read.catch(() => undefined); // a failure is met again by record(); unasked, it is no unhandled rejection
    const byType = this.early.get(tx) ?? new Map<OutboundEventType, Promise<{ id: number }[]>>();
    byType.set(type, read);
    this.early.set(tx, byType);
  }

  async record(tx: Transaction, type: OutboundEventType, data: OutboundEventData): Promise<void> {
    const db = tx.db;
    const early = this.early.get(tx)?.get(type);
    this.early.get(tx)?.delete(type);
    const endpoints = await (early ?? this.endpoints(db, type));
    if (endpoints.length === 0) return;
    const resolved = typeof data === 'function' ? await data() : data;
    if (!resolved) return;
    await writeWebhookEvent(db, this.tenant, type, resolved, endpoints.map((e) => e.id));
    this.wrote = true;
  }

  async committed(): Promise<void> {
    if (!this.wrote) return;
    this.wrote = false;
    await this.signal.notify(this.tenant.id);
  }
}
