import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { migratedSchemas } from '../outbox/pending-scan';

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

/** Columns of the caller's query that hold a registration's id and its valid_until (a date). */
export interface RegistrationColumns {
  id: string;
  validUntil: string;
}

/** The smallest threshold not below the registration's days left (valid_until − today), in SQL. */
export function reachedThreshold(db: TenantDb, registration: RegistrationColumns, thresholds: readonly number[], today: string): Knex.Raw {
  return db.raw('(select min(t) from unnest(?::int[]) t where t >= ?? - ?::date)', [[...thresholds], registration.validUntil, today]);
}

/**
 * Narrows the caller's query of registrations (their rows are the catalogue's) to those due a
 * reminder: neither their reached threshold nor a smaller one has a reminder row yet. The scan's
 * read and the batched check of which tenants have anything due both use it, so they cannot disagree.
 */
export function withoutReminder(
  q: Knex.QueryBuilder,
  db: TenantDb,
  registration: RegistrationColumns,
  thresholds: readonly number[],
  today: string,
): Knex.QueryBuilder {
  const reminded = db
    .table('expiry_reminders as r')
    .select(db.raw('1'))
    .whereRaw('r.person_competence_id = ??', [registration.id])
    .whereRaw('r.threshold_days <= ?', [reachedThreshold(db, registration, thresholds, today)]);
  return q.whereNotExists(reminded);
}

/** Those of `schemas` migrated as far as the reminder rows (100_expiry_reminders); the others are not scanned yet. */
export function schemasWithReminderRows(knex: Knex, schemas: readonly string[]): Promise<Set<string>> {
  return migratedSchemas(knex, schemas, 'expiry_reminders');
}

/**
 * The reminder rows (expiry_reminders): one per registration and threshold reminded of. Built on a
 * transaction (`tx.get`), it works on that transaction.
 */
@injectable()
export class ExpiryRemindersRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * Inside the reminder's transaction, once the caller holds the registration (still the one
   * found): inserts one row per threshold. Returns the thresholds this transaction inserted; a
   * concurrent scan that inserted one first makes this one wait for its commit and then skip it
   * (unique key, ON CONFLICT DO NOTHING).
   */
  async claimThresholds(reg: DueRegistration, thresholds: readonly number[]): Promise<number[]> {
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
    await this.db
      .table('expiry_reminders')
      .where('person_competence_id', registrationId)
      .whereIn('threshold_days', thresholds)
      .update({ message_id: messageId });
  }
}
