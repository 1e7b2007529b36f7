import type { PasswordChangeReason } from '../../platform/auth/principal';

const DAY_MS = 86_400_000;

/** The password columns of a person that decide "must change password". */
export interface PasswordState {
  password_changed_at: Date | null;
  must_change_password: PasswordChangeReason | null;
}

/** Decides whether an account is in "must change password" (errorcode 418). */
export function passwordChangeReason(row: PasswordState, maxAgeDays: number | null, now = Date.now()): PasswordChangeReason | null {
  if (row.must_change_password) return row.must_change_password;
  if (maxAgeDays !== null && row.password_changed_at && now - row.password_changed_at.getTime() > maxAgeDays * DAY_MS) {
    return 'expired';
  }
  return null;
}
