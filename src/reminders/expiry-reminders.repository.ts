import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../platform/tokens';
import type { TenantDb } from '../platform/tenancy/tenant-db';

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

/**
 * The reminder rows (expiry_reminders) and the read of registrations due one. The read joins
 * person_competences and competences directly: one indexed query per tenant and scan instead of
 * a call per registration (see README.md).
 */
@injectable()
export class ExpiryRemindersRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * Held registrations (current, passed, a checklist item checked) of active competences, valid
   * until today or later, whose reached threshold (and every smaller one) has no reminder row
   * yet; in id order from `afterId`, at most `limit`.
   */
  async due(today: string, thresholds: readonly number[], afterId: number, limit: number): Promise<DueRegistration[]> {
    const reached = '(select min(t) from unnest(?::int[]) t where t >= pc.valid_until - ?::date)';
    const due = dueCondition(this.db.ref('expiry_reminders'), today, thresholds);
    const { rows } = await this.db.raw(
      `select pc.id, pc.person_id, c.title as competence_title, to_char(pc.valid_until, 'YYYY-MM-DD') as valid_until,
              pc.valid_until - ?::date as days_left, ${reached} as reached
         from ?? pc join ?? c on c.id = pc.competence_id
        where ${due.sql}
          and pc.id > ?
        order by pc.id
        limit ?`,
      [today, [...thresholds], today, this.db.ref('person_competences'), this.db.ref('competences'), ...due.bindings, afterId, limit],
    );
    return rows.map((r: DueRegistration) => ({ ...r, id: Number(r.id), days_left: Number(r.days_left), reached: Number(r.reached) }));
  }
}

/**
 * "Due a reminder" as SQL over person_competences pc joined to competences c, with its bindings;
 * shared by the scan's read and the check that skips tenants with nothing due (reminder-candidates.ts).
 */
export function dueCondition(remindersTable: string, today: string, thresholds: readonly number[]): { sql: string; bindings: Knex.RawBinding[] } {
  const reached = '(select min(t) from unnest(?::int[]) t where t >= pc.valid_until - ?::date)';
  return {
    sql: `pc.superseded_at is null and pc.deleted_at is null and pc.passed > 0
          and (pc.checked is not false or pc.override) and c.active
          and pc.valid_until >= ?::date and pc.valid_until <= ?::date + ?::int
          and not exists (select 1 from ?? r where r.person_competence_id = pc.id and r.threshold_days <= ${reached})`,
    bindings: [today, today, Math.max(...thresholds), remindersTable, [...thresholds], today],
  };
}

/**
 * Inside the reminder's transaction: holds the registration (a renewal or deletion waits for
 * this transaction) and checks it is still the one found, then inserts one row per threshold.
 * Returns the thresholds this transaction inserted; a concurrent scan that inserted one first
 * makes this one wait for its commit and then skip it (unique key, ON CONFLICT DO NOTHING).
 */
export async function claimThresholds(trx: TenantDb, reg: DueRegistration, thresholds: readonly number[]): Promise<number[]> {
  const still = await trx.raw(
    `select 1 from ?? where id = ? and superseded_at is null and deleted_at is null and valid_until = ?::date for share`,
    [trx.ref('person_competences'), reg.id, reg.valid_until],
  );
  if (still.rows.length === 0) return [];
  const { rows } = await trx.raw(
    `insert into ?? (person_competence_id, threshold_days, days_left, valid_until)
     select ?, t, ?, ?::date from unnest(?::int[]) t
     on conflict do nothing
     returning threshold_days`,
    [trx.ref('expiry_reminders'), reg.id, reg.days_left, reg.valid_until, [...thresholds]],
  );
  return rows.map((r: { threshold_days: number }) => r.threshold_days);
}

/** Links the claimed rows to the message that went into the outbox for them. */
export async function attachMessage(trx: TenantDb, registrationId: number, thresholds: number[], messageId: number): Promise<void> {
  await trx.table('expiry_reminders').where('person_competence_id', registrationId).whereIn('threshold_days', thresholds).update({ message_id: messageId });
}
