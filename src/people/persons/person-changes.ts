import type { Principal } from '../../platform/auth/principal';
import { hashPassword } from '../../platform/auth/password-hasher';
import { ApiError } from '../../platform/errors/api-error';
import type { PersonRow } from '../person-row';
import { PROFILE_COLUMNS, type PersonCreateData, type PersonUpdateData } from './person-data.schema';

/*
 * The rules of changing a person that need nothing but the person: who may change a superuser,
 * the birthdate, the proof a self-change of credentials needs, and the columns written (with the
 * 418 state of a new password). The flows in src/flows/persons apply them around their writes.
 */

/** The password helpers of PUT /api/persons, top-level or inside person_data. */
export interface PasswordHelpers {
  old_password?: string;
  password_match?: string;
}

// A manager of the organisation a superuser sits in could otherwise reset the superuser's password and take over.
export function assertMayChange(user: Principal, target: Pick<PersonRow, 'id' | 'superuser'>): void {
  if (target.superuser && !user.superuser && user.personId !== target.id) {
    throw ApiError.forbidden('not authorised to change a superuser: only superusers may');
  }
}

/**
 * A superadmin authors the whole catalogue: a manager of their organisation must not take the
 * account over (set its password, or the e-mail or mobile a reset password is mailed to) nor change
 * its roles. Superusers may; the superadmin themself may (with the proofs self needs).
 */
export function assertMayChangeSuperadmin(
  user: Principal,
  target: Pick<PersonRow, 'id' | 'superadmin' | 'email' | 'mobile'>,
  data: Pick<PersonUpdateData, 'password' | 'email' | 'mobile'>,
  setsRoles: boolean,
): void {
  if (!target.superadmin || user.superuser || user.personId === target.id) return;
  const what = [
    data.password !== undefined ? 'password' : null,
    data.email !== undefined && data.email !== target.email ? 'e-mail' : null,
    data.mobile !== undefined && data.mobile !== target.mobile ? 'mobile' : null,
    setsRoles ? 'roles' : null,
  ].filter((w): w is string => w !== null);
  if (what.length) throw ApiError.forbidden(`not authorised to change the ${what.join(', ')} of a superadmin: only superusers may`);
}

/**
 * person_data[extern_person_id] is an identity key (SWT sign-on finds the person by it): a person
 * who set their own could sign on as whoever a partner's token names. Like role_ids, it is set by
 * the person's manager or a superuser, never by the person (403). Sending the unchanged value passes.
 */
export function changesOwnIdentityKey(isSelf: boolean, target: Pick<PersonRow, 'extern_person_id'>, data: Pick<PersonUpdateData, 'extern_person_id'>): boolean {
  return isSelf && data.extern_person_id !== undefined && data.extern_person_id !== target.extern_person_id;
}

// `today` is the tenant's, so a person born today in Kiritimati is not refused while UTC is still yesterday.
export function assertBirthdateNotFuture(data: { birthdate?: string | null }, today: string): void {
  if (data.birthdate && data.birthdate > today) throw ApiError.malformed('person_data[birthdate]', 'must not be in the future');
}

/**
 * Self needs old_password for a new password, user name, e-mail or mobile (and password_match for a
 * new password), so a stolen session cannot redirect password mail; managers and superusers need
 * neither. Answers the old password to verify, or undefined when no proof is needed.
 */
export function passwordToProve(isSelf: boolean, target: PersonRow, data: PersonUpdateData, input: PasswordHelpers): string | undefined {
  const changesUserName = data.user_name !== undefined && data.user_name !== target.user_name;
  const changesContact = (['email', 'mobile'] as const).some((f) => data[f] !== undefined && data[f] !== target[f]);
  if (!isSelf || (data.password === undefined && !changesUserName && !changesContact)) return undefined;
  const oldPassword = input.old_password ?? data.old_password;
  if (oldPassword === undefined) throw ApiError.missing('old_password');
  if (data.password !== undefined && (input.password_match ?? data.password_match) === undefined) throw ApiError.missing('password_match');
  return oldPassword;
}

/** After the old password is proven (`proven`, if one was asked for): the new one differs from it and equals password_match. */
export function assertNewPassword(data: PersonUpdateData, input: PasswordHelpers, proven: string | undefined): void {
  if (proven !== undefined && data.password !== undefined && data.password === proven) {
    throw ApiError.malformed('person_data[password]', 'must differ from the current password');
  }
  const passwordMatch = input.password_match ?? data.password_match;
  if (passwordMatch !== undefined && data.password !== undefined && passwordMatch !== data.password) {
    throw ApiError.malformed('password_match', 'must equal person_data[password]');
  }
}

/** The columns an update writes; a password set by someone else must be changed at the next login (418). */
export async function updatedColumns(data: PersonUpdateData, isSelf: boolean): Promise<Record<string, unknown>> {
  const changes: Record<string, unknown> = {};
  for (const c of PROFILE_COLUMNS) if (data[c] !== undefined) changes[c] = data[c];
  if (data.user_name !== undefined) changes.user_name = data.user_name;
  if (data.password !== undefined) {
    changes.password_hash = await hashPassword(data.password);
    changes.password_changed_at = new Date();
    changes.must_change_password = isSelf ? null : 'changed_by_other';
  }
  return changes;
}

/** The row of a new person; a password chosen by the creator must be changed at first login (418). */
export async function newPersonColumns(data: PersonCreateData, organisationId: number): Promise<Record<string, unknown>> {
  const row: Record<string, unknown> = { user_name: data.user_name, organisation_id: organisationId };
  for (const c of PROFILE_COLUMNS) if (data[c] !== undefined) row[c] = data[c];
  if (data.password !== undefined) {
    row.password_hash = await hashPassword(data.password);
    row.password_changed_at = new Date();
    row.must_change_password = 'changed_by_other';
  }
  return row;
}

/** Field names of a person change as receivers know them (password, not its hash; roles). */
export function changedFields(changes: Record<string, unknown>, roles: boolean): string[] {
  const internal = ['password_changed_at', 'must_change_password'];
  const names = Object.keys(changes)
    .filter((k) => !internal.includes(k))
    .map((k) => (k === 'password_hash' ? 'password' : k));
  return roles ? [...names, 'roles'] : names;
}
