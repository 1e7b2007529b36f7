import { randomInt } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../platform/tokens';
import type { TenantDb } from '../platform/tenancy/tenant-db';
import { hashPassword, verifyPassword } from '../platform/auth/password-hasher';

/** How long a mailed password can be used for the first time. */
export const PENDING_PASSWORD_HOURS = 72;

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

export function randomPassword(length = 14): string {
  return Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
}

export interface PendingPasswordRow {
  id: number;
  pending_password_hash?: string | null;
  pending_password_expires_at?: Date | null;
}

/**
 * A mailed password is stored as a pending hash next to the current one, so a stranger who
 * requests resets cannot lock anyone out: the old password keeps working. Logging in with the
 * pending one makes it the password and asks for a new one (418 sent_by_mail); logging in
 * with the old one discards the pending one.
 */
@injectable()
export class PendingPasswords {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** Generates a password, stores its hash as pending and returns the plain text for the mail only. */
  async issue(personId: number): Promise<string> {
    const plain = randomPassword();
    await this.db
      .table('persons')
      .where({ id: personId })
      .update({
        pending_password_hash: await hashPassword(plain),
        pending_password_expires_at: new Date(Date.now() + PENDING_PASSWORD_HOURS * 3_600_000),
      });
    return plain;
  }

  /** True when the password is the person's unexpired pending one. */
  async matches(row: PendingPasswordRow, password: string): Promise<boolean> {
    if (!row.pending_password_hash || !row.pending_password_expires_at) return false;
    if (row.pending_password_expires_at.getTime() < Date.now()) return false;
    return verifyPassword(row.pending_password_hash, password);
  }

  /** The pending password becomes the password; the account must change it (418). */
  async promote(personId: number): Promise<void> {
    await this.db
      .table('persons')
      .where({ id: personId })
      .update({
        password_hash: this.db.raw('pending_password_hash'),
        pending_password_hash: null,
        pending_password_expires_at: null,
        password_changed_at: this.db.fn.now(),
        must_change_password: 'sent_by_mail',
        updated_at: this.db.fn.now(),
      });
  }

  async discard(personId: number): Promise<void> {
    await this.db.table('persons').where({ id: personId }).whereNotNull('pending_password_hash').update({ pending_password_hash: null, pending_password_expires_at: null });
  }
}
