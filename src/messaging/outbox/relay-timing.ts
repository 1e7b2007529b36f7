import type { InjectionToken } from 'tsyringe';

/** The timing of both relays (messages and webhooks). */
export interface RelayTiming {
  /** Wait before trying again what could not move (queue full, Redis or database away), and between passes while signals keep coming. */
  pollMs: number;
  /** Safety sweep: every tenant is looked at this often (and at start, and when Redis or the wake-up listener comes back). */
  sweepMs: number;
  /** Tenants with rows in flight are looked at again this often (at most OUTBOX_REDELIVER_AFTER_SECONDS). */
  reconcileMs?: number;
  /**
   * Rows moved per tenant per pass (messages: bulk rows): tenants take turns. With a pass at most
   * every pollMs it also caps one tenant's delivery rate: 200 rows per 250-500 ms (the pass's own
   * time under load) held a 5,000-message burst at 400-800 mails/s while the POSTs ran at 830/s
   * (bench, 2026-11-24); 500 lifts that cap to 1,000-2,000/s, and maxQueueDepth still bounds the queue.
   */
  perTenantBatch: number;
  /** Bulk message jobs allowed to wait in the queue; beyond that rows stay in the outbox. */
  maxQueueDepth: number;
  /** Tenants the relays serve (tests share one database); all when absent. */
  onlyTenants?: readonly number[];
}
export const RELAY_TIMING: InjectionToken<RelayTiming> = Symbol('RelayTiming');
export const DEFAULT_RELAY_TIMING: RelayTiming = { pollMs: 250, sweepMs: 3_600_000, reconcileMs: 120_000, perTenantBatch: 500, maxQueueDepth: 2_000 };
