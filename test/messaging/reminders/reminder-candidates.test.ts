import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { setConfig, tenantDb } from '../../courses/events/events-support';
import { TenantStore } from '../../../src/platform/tenant-scope/tenant-store';
import { CLUSTERS } from '../../../src/platform/clusters/clusters';
import { addDays, todayIn } from '../../../src/platform/time/tenant-clock';
import { readDueRegistrations } from '../../../src/flows/reminders/due-registrations';
import { tenantsWithDueReminders } from '../../../src/flows/reminders/reminder-candidates';

/*
 * The reminder scan visits only the tenants this batched check names (reminder-candidates.ts). It
 * must agree with the scan's own query (readDueRegistrations) for every tenant, with each
 * tenant's thresholds and calendar day.
 */
// Far from the demo data's dates: only what these tests register is near expiry.
const NOW = new Date('2040-06-01T12:00:00Z');
let t: TestApp;
let due: DemoTenant; // a registration 5 days before expiry, thresholds [30, 7]
let calm: DemoTenant; // nothing near expiry
let off: DemoTenant; // reminders off
let kiritimati: DemoTenant; // expiry 31 days ahead in UTC but 30 in the tenant's calendar

async function registerExpiring(tenant: DemoTenant, validUntil: string): Promise<void> {
  const db = tenantDb(t, tenant);
  const person = await db.table('persons').orderBy('id').first('id');
  const competence = await db.table('competences').where({ active: true }).whereNull('parent_id').orderBy('id').first('id');
  await db.table('person_competences').where({ person_id: person.id, competence_id: competence.id }).update({ superseded_at: NOW });
  await db.table('person_competences').insert({ person_id: person.id, competence_id: competence.id, passed: 100, valid_until: validUntil });
}

beforeAll(async () => {
  t = await createTestApp();
  [due, calm, off, kiritimati] = await Promise.all([
    importDemoTenant(t, 'acme'),
    importDemoTenant(t, 'acme'),
    importDemoTenant(t, 'globex'),
    importDemoTenant(t, 'acme'),
  ]);
  await registerExpiring(due, addDays(todayIn('UTC', NOW), 5));
  await registerExpiring(off, addDays(todayIn('UTC', NOW), 5));
  await setConfig(t, off, 'reminders.days_before', []);
  await setConfig(t, kiritimati, 'tenant.timezone', 'Pacific/Kiritimati');
  await registerExpiring(kiritimati, addDays(todayIn('UTC', NOW), 31));
});
afterAll(async () => t?.close());

const all = () => [due, calm, off, kiritimati].map((x) => ({ id: x.tenantId, schema: x.schema }));

describe('tenantsWithDueReminders', () => {
  it('names the tenants with a registration due; every other migrated tenant is settled as nothing due', async () => {
    const r = await tenantsWithDueReminders(
      t.container.resolve(TenantStore),
      t.container.resolve(CLUSTERS),
      [...all(), { id: -1, schema: 'tenant_not_there' }],
      NOW,
    );
    expect([...r.due].sort()).toEqual([due.tenantId, kiritimati.tenantId].sort());
    expect([...r.checked].sort()).toEqual(
      all()
        .map((x) => x.id)
        .sort(),
    );
  });

  it("agrees with the scan's own query for each tenant, today and on the days around the thresholds", async () => {
    for (const days of [0, 1, 2, 20, 25, 40]) {
      const now = new Date(NOW.getTime() + days * 86_400_000);
      const r = await tenantsWithDueReminders(t.container.resolve(TenantStore), t.container.resolve(CLUSTERS), all(), now);
      for (const [tenant, thresholds, zone] of [
        [due, [30, 7], 'UTC'],
        [calm, [30, 7], 'UTC'],
        [kiritimati, [30, 7], 'Pacific/Kiritimati'],
      ] as const) {
        const rows = await readDueRegistrations(tenantDb(t, tenant), todayIn(zone, now), thresholds, 0, 1);
        expect({ days, tenant: tenant.slug, due: r.due.has(tenant.tenantId) }).toEqual({ days, tenant: tenant.slug, due: rows.length > 0 });
      }
      expect(r.due.has(off.tenantId)).toBe(false);
    }
  });
});
