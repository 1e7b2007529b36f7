import { z } from 'zod';
import { ApiError } from '../../platform/errors/api-error';
import { PERSON_STATES, type PersonRow } from '../person-row';

/** The `state` parameter of the lists that leave deactivated persons out by default. */
export const personStateParam = z
  .enum(PERSON_STATES, { message: 'must be active, deactivated or all' })
  .optional()
  .describe('active (default): persons not deactivated; deactivated: only deactivated persons; all: both');

/**
 * The one wording of "this account is deactivated" (login, sessions, sign-on hashes; SWT words it
 * as its own refusal): a 401 that names the reason, so the person knows to ask for reactivation
 * rather than for a new password. Login says it only after the right password, so it tells a
 * guesser nothing.
 */
export function accountDeactivated(userName: string): ApiError {
  return new ApiError(401, `the account of ${userName} is deactivated; a superuser or the person's manager can reactivate it`);
}

export const deactivationText = (userName: string) => `the account of ${userName} is deactivated`;

export function isDeactivated(p: Pick<PersonRow, 'deactivated_at'>): boolean {
  return p.deactivated_at !== null && p.deactivated_at !== undefined;
}
