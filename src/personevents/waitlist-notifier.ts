import type { InjectionToken } from 'tsyringe';

/**
 * Told after a sign-off moved someone from the wait list onto a seat. Optional: the
 * messaging feature registers an implementation (resolved from the request's tenant
 * scope, so it may inject TENANT_DB); without one, promotion happens silently.
 */
export interface WaitlistNotifier {
  notifyPromoted(personEventId: number): Promise<void>;
}

export const WAITLIST_NOTIFIER: InjectionToken<WaitlistNotifier> = Symbol('WaitlistNotifier');
