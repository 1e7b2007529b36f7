import type { InjectionToken } from 'tsyringe';
import type { Transaction } from '../../platform/tenancy/unit-of-work';

/**
 * Extension point for POST /api/persons with send_login=1: the messaging module registers
 * an implementation (in its index.ts) that gives the new person a password and mails it.
 * It is resolved from the request's tenant scope, so it may inject TENANT and TENANT_DB.
 * While nothing is registered, the person is created and the answer says no login was sent.
 */
export interface NewPersonNotifier {
  /**
   * Writes the login mail in `tx`, the transaction that creates the person, so the person
   * and the mail commit together (a crash in between cannot lose the mail). Throws when the
   * person cannot be reached; the person is created anyway.
   */
  sendLogin(person: { personId: number; userName: string }, tx: Transaction): Promise<void>;
}

export const NEW_PERSON_NOTIFIER: InjectionToken<NewPersonNotifier> = Symbol('NewPersonNotifier');
