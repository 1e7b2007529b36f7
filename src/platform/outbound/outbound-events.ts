import type { InjectionToken } from 'tsyringe';

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
  'competence.created',
  'competence.updated',
  'competence.deleted',
  'event.created',
  'event.updated',
  'event.cancelled',
  'event.deleted',
  'personevent.result_recorded',
  'person.deactivated',
  'person.reactivated',
] as const;
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

/** The event's data, or a function that reads it: called only when some endpoint wants the event. */
export type OutboundEventData = Record<string, unknown> | (() => Promise<Record<string, unknown> | null>);

/**
 * Where a feature tells the outside world about a change. The webhooks feature implements it
 * (messaging registers it). It is reached only through a transaction, `tx.get(OUTBOUND_EVENTS)`:
 * an event is written in the change's own transaction, so the change and the event commit
 * together or not at all, and the relay is woken after the commit (tx.afterCommit), never before.
 */
export interface OutboundEvents {
  /**
   * Writes the event. `data` is the simple view of the object (with user_name and ids); give a
   * function when reading it costs a query, so a tenant without webhooks pays nothing.
   */
  record(type: OutboundEventType, data: OutboundEventData): Promise<void>;
  /**
   * Optional: starts reading who wants `type` now, without waiting, so that a later record() of
   * that type makes no round trip of its own to ask. A change that takes a row lock calls it
   * before taking the lock, so the question is not asked while the lock is held.
   */
  expect?(type: OutboundEventType): void;
}

export const OUTBOUND_EVENTS: InjectionToken<OutboundEvents> = Symbol('OutboundEvents');
