import type { InjectionToken } from 'tsyringe';
import type { TenantDb } from '../../platform/tenancy/tenant-db';

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
 * a taken-over account is noticed (ASVS 2.2.3). Implemented by the messaging feature (registerFeatures).
 */
export interface ContactChangeNotifier {
  /** Writes the notice on `db`, the change's own transaction, so both commit or neither. */
  write(db: TenantDb, change: ContactChange): Promise<void>;
  /** After commit: wakes the delivery (best effort). */
  committed(tenantId: number): Promise<void>;
}

export const CONTACT_CHANGE_NOTIFIER: InjectionToken<ContactChangeNotifier> = Symbol('ContactChangeNotifier');
