import type { InjectionToken } from 'tsyringe';
import type { Transaction } from '../../platform/tenancy/unit-of-work';

/**
 * Told when a sign-off moves someone from the wait list onto a seat. Optional: the
 * messaging module registers an implementation (resolved from the request's tenant
 * scope, so it may inject TENANT_DB); without one, promotion happens silently.
 */
/** Who moved onto a seat of which event. */
export interface Promotion {
  personId: number;
  eventTitle: string;
  startsAt: Date;
}

export interface WaitlistNotifier {
  /**
   * Writes the notice in `tx`, the sign-off's transaction, so promotion and notice commit
   * together (the notifier wakes the delivery with tx.afterCommit). `promotion` carries what the
   * notice tells, so the notifier reads no course table.
   */
  notifyPromoted(tx: Transaction, personEventId: number, promotion: Promotion): Promise<void>;
}

export const WAITLIST_NOTIFIER: InjectionToken<WaitlistNotifier> = Symbol('WaitlistNotifier');
