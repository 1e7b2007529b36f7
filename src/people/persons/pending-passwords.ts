import { randomInt } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { hashPassword, verifyPassword } from '../../platform/auth/password-hasher';

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
  pending_password_earlier?: string[] | null;
}

/** Hashes kept per delivery: a resend happens only when a worker dies mid-send, so a few suffice. */
const MAX_EARLIER = 7;

/**
 * A mailed password is stored as a pending hash next to the current one, so a stranger who
 * requests resets cannot lock anyone out: the old password keeps working. Logging in with the
 * pending one makes it the password and asks for a new one (418 sent_by_mail); logging in
 * with the old one discards the pending one.
 *
 * Delivery is at least once, so one delivery may generate several passwords (a send cut off
 * after the SMTP server took the mail is sent again with a new one). All passwords of the same
 * delivery stay pending, so whichever mail the person reads works. Chosen over storing one
 * password per delivery encrypted: no key to manage, and no plain-text-recoverable password at rest.
 */
@injectable()
export class PendingPasswords {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * Generates a password for the delivery, stores its hash as pending and returns the plain text for
   * the mail only. `requestedAt`: when the mail was asked for. Null (no password made) when the
   * person's password, e-mail or mobile changed since (migration 300's credentials_changed_at): the
   * mail was asked for under credentials that no longer hold, so it must not carry a working password.
   */
  async issue(personId: number, deliveryId: number, requestedAt: Date | string): Promise<string | null> {
    const plain = randomPassword();
    const sameDelivery = this.db.raw('pending_password_delivery_id = ? and pending_password_hash is not null', [deliveryId]);
    const updated = await this.db
      .table('persons')
      .where({ id: personId })
      .where(
        (q) =>
          void q
            .whereNull('credentials_changed_at')
            .orWhereRaw('credentials_changed_at <= ?::timestamptz', [requestedAt instanceof Date ? requestedAt.toISOString() : requestedAt]),
      )
      .update({
        pending_password_earlier: this.db.raw(
          `case when ? then (array_append(coalesce(pending_password_earlier, '{}'), pending_password_hash))[greatest(1, coalesce(cardinality(pending_password_earlier), 0) + 2 - ${MAX_EARLIER}):] else null end`,
          [sameDelivery],
        ),
        pending_password_hash: await hashPassword(plain),
        pending_password_delivery_id: deliveryId,
        pending_password_expires_at: new Date(Date.now() + PENDING_PASSWORD_HOURS * 3_600_000),
      });
    return updated ? plain : null;
  }

  /** The hash of the unexpired pending password that matches, or null. */
  async matches(row: PendingPasswordRow, password: string): Promise<string | null> {
    if (!row.pending_password_hash || !row.pending_password_expires_at) return null;
    if (row.pending_password_expires_at.getTime() < Date.now()) return null;
    for (const hash of [row.pending_password_hash, ...(row.pending_password_earlier ?? [])]) {
      if (await verifyPassword(hash, password)) return hash;
    }
    return null;
  }

  /**
   * The matching pending password becomes the password; the account must change it (418). Only
   * while that hash is still pending: a password, e-mail or mobile change since the login read the
   * row cleared it (migration 300's trigger), and a newer password is never replaced. False then.
   */
  async promote(personId: number, hash: string): Promise<boolean> {
    const updated = await this.db
      .table('persons')
      .where({ id: personId })
      .where((q) => void q.where('pending_password_hash', hash).orWhereRaw('? = any(pending_password_earlier)', [hash]))
      .update({
        password_hash: hash,
        ...CLEARED,
        password_changed_at: this.db.fn.now(),
        must_change_password: 'sent_by_mail',
        updated_at: this.db.fn.now(),
      });
    return updated > 0;
  }

  async discard(personId: number): Promise<void> {
    await this.db.table('persons').where({ id: personId }).whereNotNull('pending_password_hash').update(CLEARED);
  }
}

const CLEARED = { pending_password_hash: null, pending_password_expires_at: null, pending_password_delivery_id: null, pending_password_earlier: null };
