import type { DependencyContainer } from 'tsyringe';
import { expect } from 'vitest';
import { addDays, todayIn } from '../../../src/platform/time/tenant-clock';
import { ReminderScan, REMINDER_SCAN_OPTIONS, DEFAULT_REMINDER_SCAN_OPTIONS, type ScanSummary } from '../../../src/flows/reminders/reminder-scan';
import type { DemoTenant, TestApp } from '../../support/test-app';
import { tenantDb } from '../../courses/events/events-support';
import { waitFor } from '../messages/delivery-peers';

/** A ReminderScan of this container limited to the given tenants (the lock is the container's). */
export function scannerFor(c: DependencyContainer, tenantIds: number[], lockTimeoutMs = DEFAULT_REMINDER_SCAN_OPTIONS.lockTimeoutMs): ReminderScan {
  const child = c.createChildContainer();
  child.register(REMINDER_SCAN_OPTIONS, { useValue: { lockTimeoutMs, onlyTenants: tenantIds } });
  return child.resolve(ReminderScan);
}

/** Runs a scan, waiting out a scan that holds the lock (the workers' own, started at once). */
export async function scanNow(scan: ReminderScan): Promise<ScanSummary> {
  return waitFor('the scan lock', async () => {
    const r = await scan.run();
    return r === 'busy' ? null : r;
  });
}

/** The calendar day `days` after the tenant-zone today of `now`. */
export function dayAfter(now: Date, days: number, zone = 'UTC'): string {
  return addDays(todayIn(zone, now), days);
}

/** A calendar day as English notices write it (issue 39: Intl, en-GB order): 2026-03-07 → 7 March 2026. */
export function longDate(day: string): string {
  return new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
}

export interface ReminderView {
  message_id: number;
  title: string;
  text: string;
  cc: string;
  send_medium: string;
  sender_user_name: string | null;
  deliveries: { medium: string; address: string; state: string }[];
}

/** The reminders a person sees in GET /api/messages (asked by a client allowed to read them). */
export async function remindersOf(api: { get(url: string): PromiseLike<{ status: number; body: any }> }, userName: string): Promise<ReminderView[]> {
  const res = await api.get(`/api/messages?user_name=${userName}&limit=100`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.messages.filter((m: ReminderView) => m.title.startsWith('Reminder: '));
}

export interface ReminderRow {
  person_competence_id: number;
  threshold_days: number;
  days_left: number;
  message_id: number | null;
  valid_until: string;
}

/** The reminder rows of a person's registrations of one competence, oldest registration first. */
export async function reminderRows(t: TestApp, tenant: DemoTenant, userName: string, competenceId: number): Promise<ReminderRow[]> {
  const db = tenantDb(t, tenant);
  return db
    .table('expiry_reminders as r')
    .join('person_competences as pc', 'pc.id', 'r.person_competence_id')
    .join('persons as p', 'p.id', 'pc.person_id')
    .where({ 'p.user_name': userName, 'pc.competence_id': competenceId })
    .orderBy(['pc.id', 'r.threshold_days'])
    .select('r.person_competence_id', 'r.threshold_days', 'r.days_left', 'r.message_id', db.raw("to_char(r.valid_until, 'YYYY-MM-DD') as valid_until"));
}
