import type { InjectionToken } from 'tsyringe';
import type { Transaction } from '../../platform/tenancy/unit-of-work';

export interface ContactChange {
  personId: number;
  userName: string;
  /** The address the notice goes to: the e-mail before the change. */
  oldEmail: string;
  fields: ('email' | 'mobile' | 'password')[];
  changedBy: string;
}

/**
 * Tells a person's previous e-mail address that their password, e-mail or mobile changed, so
 * a taken-over account is noticed (ASVS 2.2.3). Implemented by the messaging module (registered in its index.ts).
 */
export interface ContactChangeNotifier {
  /** Writes the notice in the change's own transaction, so both commit or neither (and wakes the delivery after the commit). */
  write(tx: Transaction, change: ContactChange): Promise<void>;
}

export const CONTACT_CHANGE_NOTIFIER: InjectionToken<ContactChangeNotifier> = Symbol('ContactChangeNotifier');
