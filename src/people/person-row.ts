import type { PasswordChangeReason } from '../platform/auth/principal';

/**
 * The one row type of a person: the persons columns code may read. Password hashes and pending
 * passwords are no part of it (PersonCredentials reads those). Other modules pick what they
 * need from it (Pick<PersonRow, ...>), so a column is named and typed in one place.
 */
export interface PersonRow {
  id: number;
  user_name: string;
  firstname: string | null;
  lastname: string | null;
  jobtitle: string | null;
  mobile: string | null;
  email: string | null;
  birthdate: string | null;
  extern_person_id: string | null;
  address: string | null;
  postcode: string | null;
  city: string | null;
  phone: string | null;
  sex: string | null;
  notice: string | null;
  employee_code: string | null;
  profile_image: string | null;
  source: string | null;
  code: string | null;
  /** BCP 47 language tag, canonical (issue 39); null: the tenant's language. */
  language: string | null;
  organisation_id: number | null;
  superuser: boolean;
  superadmin: boolean;
  password_changed_at: Date | null;
  must_change_password: PasswordChangeReason | null;
  /** When the person was deactivated (a leaver: no login, left out of lists); null while active. */
  deactivated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The columns a Principal is built from. */
export const ACCOUNT_COLUMNS = ['id', 'user_name', 'superuser', 'organisation_id', 'password_changed_at', 'must_change_password', 'deactivated_at'] as const;
export type AccountRow = Pick<PersonRow, (typeof ACCOUNT_COLUMNS)[number]>;

/**
 * Which persons a list shows: the active ones (the default), the deactivated ones, or all
 * (GET /api/persons, organisation persons, participants, the competence level's `state`).
 */
export const PERSON_STATES = ['active', 'deactivated', 'all'] as const;
export type PersonState = (typeof PERSON_STATES)[number];

/** A person named by id or by user name. */
export type PersonKey = Pick<PersonRow, 'id'> | Pick<PersonRow, 'user_name'>;

/** What a call that acts on a person needs of them. */
export type PersonRef = Pick<PersonRow, 'id' | 'user_name' | 'organisation_id'>;
