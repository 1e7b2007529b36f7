import type { Knex } from 'knex';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { expiringRegistrations } from '../../catalogue';
import { deactivatedPersons } from '../../people';
import { reachedThreshold, withoutReminder, type DueRegistration, type RegistrationColumns } from '../../messaging';

/*
 * The read model of registrations due an expiry reminder: the catalogue's registrations that may
 * expire (pc, joined to their competence c) without messaging's reminder row for their reached
 * threshold. One indexed query per tenant and scan, the two modules composed here, where both are known.
 */

/** The registration columns of the catalogue's `expiringRegistrations` that the reminder rows refer to. */
const REGISTRATION: RegistrationColumns = { id: 'pc.id', validUntil: 'pc.valid_until' };

/**
 * Registrations due a reminder: expiring within the largest threshold, and their reached threshold
 * (and every smaller one) without a reminder row yet, of persons not deactivated (people's
 * `deactivatedPersons`: a leaver is reminded of nothing; reactivated, they are again). The scan's read and the batched check of which
 * tenants have anything due (reminder-candidates.ts) share it, so they cannot disagree.
 */
export function dueRegistrations(db: TenantDb, today: string, thresholds: readonly number[]): Knex.QueryBuilder {
  return withoutReminder(expiringRegistrations(db, today, Math.max(...thresholds)), db, REGISTRATION, thresholds, today).whereNotIn(
    'pc.person_id',
    deactivatedPersons(db),
  );
}

/**
 * Held registrations of active competences, valid until today or later, whose reached threshold
 * (and every smaller one) has no reminder row yet; in id order from `afterId`, at most `limit`.
 */
export async function readDueRegistrations(
  db: TenantDb,
  today: string,
  thresholds: readonly number[],
  afterId: number,
  limit: number,
): Promise<DueRegistration[]> {
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
      db.raw('? as reached', [reachedThreshold(db, REGISTRATION, thresholds, today)]),
    );
  return rows.map((r: DueRegistration) => ({ ...r, id: Number(r.id), days_left: Number(r.days_left), reached: Number(r.reached) }));
}
