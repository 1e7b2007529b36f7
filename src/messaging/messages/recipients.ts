/**
 * What messaging needs to know of a recipient: people's columns by these names. A flow reads them
 * (people's PersonDirectory, or a sub-query of persons inside the one-statement send) and hands them over.
 */
export const RECIPIENT_COLUMNS = ['id', 'user_name', 'organisation_id', 'email', 'mobile', 'language'] as const;

export interface Recipient {
  id: number;
  user_name: string;
  organisation_id: number | null;
  email: string | null;
  mobile: string | null;
  /** BCP 47 (persons.language, migration 330): the language of the notices the person gets; null: the tenant's. */
  language?: string | null;
}
