import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import { expiringRegistrations, holdRegistration } from '../../catalogue';

/** A current registration whose days left reached a threshold it was not reminded of. */
export interface DueRegistration {
  id: number;
  person_id: number;
  competence_title: string;
  valid_until: string;
  days_left: number;
  /** The smallest threshold not below days_left. */
  reached: number;
}

/** The smallest threshold not below the registration's days left, in SQL (bindings: thresholds, today). */
const REACHED = '(select min(t) from unnest(?::int[]) t where t >= pc.valid_until - ?::date)';

/**
 * Registrations (pc, with their competence c) due a reminder: expiring within the largest
 * threshold, and their reached threshold (and every smaller one) without a reminder row yet. The
 * scan's read and the batched check of which tenants have anything due (reminder-candidates.ts)
 * share it, so they cannot disagree.
 */
export function dueRegistrations(db: TenantDb, today: string, thresholds: readonly number[]): Knex.QueryBuilder {
  const reminded = db
    .table('expiry_reminders as r')
    .select(db.raw('1'))
    .whereRaw('r.person_competence_id = pc.id')
    .whereRaw(`r.threshold_days <= ${REACHED}`, [[...thresholds], today]);
  return expiringRegistrations(db, today, Math.max(...thresholds)).whereNotExists(reminded);
}

/**
 * The reminder rows (expiry_reminders) and the read of registrations due one. The registrations
 * come from the catalogue's `expiringRegistrations` (it names its tables); this adds the
 * thresholds and the rows already written: one indexed query per tenant and scan instead of a call
 * per registration (see README.md). Built on a transaction (`tx.get`), it works on that transaction.
 */
@injectable()
export class ExpiryRemindersRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * Held registrations of active competences, valid until today or later, whose reached threshold
   * (and every smaller one) has no reminder row yet; in id order from `afterId`, at most `limit`.
   */
  async due(today: string, thresholds: readonly number[], afterId: number, limit: number): Promise<DueRegistration[]> {
    const db = this.db;
    const t = [...thresholds];
    const rows = await dueRegistrations(db, today, thresholds)
      .where('pc.id', '>', afterId)
      .orderBy('pc.id')
      .limit(limit)
      .select(
        'pc.id',
        'pc.person_id',
        'c.title as competence_title',
        db.raw(`to_char(pc.valid_until, 'YYYY-MM-DD') as valid_until`),
        db.raw('pc.valid_until - ?::date as days_left', [today]),
        db.raw(`${REACHED} as reached`, [t, today]),
      );
    return rows.map((r: DueRegistration) => ({ ...r, id: Number(r.id), days_left: Number(r.days_left), reached: Number(r.reached) }));
  }

  /**
   * Inside the reminder's transaction: holds the registration (a renewal or deletion waits for
   * this transaction) and checks it is still the one found, then inserts one row per threshold.
   * Returns the thresholds this transaction inserted; a concurrent scan that inserted one first
   * makes this one wait for its commit and then skip it (unique key, ON CONFLICT DO NOTHING).
   */
  async claimThresholds(reg: DueRegistration, thresholds: readonly number[]): Promise<number[]> {
    if (!(await holdRegistration(this.db, reg.id, reg.valid_until))) return [];
    const { rows } = await this.db.raw(
      `insert into ?? (person_competence_id, threshold_days, days_left, valid_until)
       select ?, t, ?, ?::date from unnest(?::int[]) t
       on conflict do nothing
       returning threshold_days`,
      [this.db.ref('expiry_reminders'), reg.id, reg.days_left, reg.valid_until, [...thresholds]],
    );
    return rows.map((r: { threshold_days: number }) => r.threshold_days);
  }

  /** Links the claimed rows to the message that went into the outbox for them. */
  async attachMessage(registrationId: number, thresholds: number[], messageId: number): Promise<void> {
    await this.db.table('expiry_reminders').where('person_competence_id', registrationId).whereIn('threshold_days', thresholds).update({ message_id: messageId });
  }
}
