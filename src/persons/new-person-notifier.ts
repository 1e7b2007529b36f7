import type { InjectionToken } from 'tsyringe';

/**
 * Extension point for POST /api/persons with send_login=1: the messaging feature registers
 * an implementation (in registerFeatures) that gives the new person a password and mails it.
 * It is resolved from the request's tenant scope, so it may inject TENANT and TENANT_DB.
 * While nothing is registered, the person is created and the answer says no login was sent.
 */
export interface NewPersonNotifier {
  sendLogin(person: { personId: number; userName: string }): Promise<void>;
}

export const NEW_PERSON_NOTIFIER: InjectionToken<NewPersonNotifier> = Symbol('NewPersonNotifier');
