import type { InjectionToken } from 'tsyringe';
import type { Transaction } from '../tenant-scope/unit-of-work';

/*
 * The rights of access and erasure (GDPR) reach every module that keeps personal data. The kernel
 * declares the extension point so that no module has to know another: each module registers its
 * holder (PERSON_DATA, a multi-registration), and the person export and erasure collect them all.
 */

/** The person as the export and the erasure hand it to a module. */
export interface PersonKey {
  id: number;
  user_name: string;
}

/** The sections of GET /api/persons/:user_name/export that modules other than people fill. */
export type PersonExportSection = 'personcompetences' | 'personevents' | 'surveyanswers' | 'messages' | 'files' | 'notificationpreferences';

/**
 * What a module did for an erasure: details for the person.erased audit entry. What cannot roll
 * back with the transaction (file bytes) it registers with tx.afterCommit, logging its failures.
 */
/**
 * The person being erased as they were before: the placeholder user name they get, and every
 * value that identified them (current and former user names, e-mail, mobile, names, codes), for
 * holders that keep copies of those values in free form (webhook event bodies).
 */
export interface ErasedPerson {
  placeholder: string;
  identifiers: string[];
}

export interface ErasureStep {
  details?: Record<string, unknown>;
}

/**
 * What a module keeps about a person, for the rights of access and erasure (GDPR). Multi-registration:
 * every module with personal data registers one, so a new table cannot be forgotten by the export.
 */
/**
 * One page of every section of the export: at most `limit` rows from `offset` on, in the section's
 * id order (a person's history can grow without end, so no section is read whole).
 */
export interface ExportPage {
  limit: number;
  offset: number;
}

export interface PersonDataHolder {
  export?(person: PersonKey, page: ExportPage): Promise<Partial<Record<PersonExportSection, Record<string, unknown>[]>>>;
  /** Blanks or removes what identifies the person, inside the erasure's transaction. */
  erase?(tx: Transaction, personId: number, person: ErasedPerson): Promise<ErasureStep | void>;
}
export const PERSON_DATA: InjectionToken<PersonDataHolder> = Symbol('PersonData');
