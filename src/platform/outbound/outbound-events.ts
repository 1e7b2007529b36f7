import type { InjectionToken } from 'tsyringe';
import type { Transaction } from '../tenancy/unit-of-work';

/** The changes other systems can subscribe to (webhooks). Names are permanent: receivers match on them. */
export const OUTBOUND_EVENT_TYPES = [
  'person.created',
  'person.updated',
  'personcompetence.registered',
  'personcompetence.deleted',
  'personevent.signed_on',
  'personevent.signed_off',
  'personevent.promoted',
  'message.failed',
] as const;
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

/** The event's data, or a function that reads it: called only when some endpoint wants the event. */
export type OutboundEventData = Record<string, unknown> | (() => Promise<Record<string, unknown> | null>);

/**
 * Where a feature tells the outside world about a change. The webhooks feature implements it
 * (messaging registers it); it is resolved from a tenant scope (request or job), so it knows the tenant.
 * Each resolution is a fresh instance that remembers whether it wrote anything.
 */
export interface OutboundEvents {
  /**
   * Writes the event in `tx`, the change's own transaction, so the change and the event
   * commit together or not at all. `data` is the simple view of the object (with user_name and ids);
   * give a function when reading it costs a query, so a tenant without webhooks pays nothing.
   */
  record(tx: Transaction, type: OutboundEventType, data: OutboundEventData): Promise<void>;
  /**
   * Optional: starts reading who wants `type` in `tx` now, without waiting, so that a later
   * record() of that type in `tx` makes no round trip of its own to ask. A change that takes a
   * row lock calls it before taking the lock, so the question is not asked while the lock is held.
   */
  expect?(tx: Transaction, type: OutboundEventType): void;
  /** After the commit: wakes the relay when something was written (best effort). */
  committed(): Promise<void>;
}

export const OUTBOUND_EVENTS: InjectionToken<OutboundEvents> = Symbol('OutboundEvents');
