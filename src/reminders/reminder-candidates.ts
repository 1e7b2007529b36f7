import type { Knex } from 'knex';
import { PlatformDb } from '../platform/tenancy/platform-db';
import { TenantConfig } from '../platform/config-items/tenant-config';
import { parseConfigValue } from '../platform/config-items/config-item-registry';
import { todayIn } from '../platform/time/tenant-clock';
import { dueCondition } from './expiry-reminders.repository';

/** Tenants per statement: one UNION ALL of indexed probes. */
const CHUNK = 200;
const ITEMS = ['reminders.days_before', 'tenant.timezone'] as const;

export interface ReminderCandidates {
  /** Tenants this check settled: nothing due (the scan may skip them), or something due. */
  checked: Set<number>;
  /** Of those, the tenants with a registration due a reminder now. */
  due: Set<number>;
}

/**
 * Which of these tenants have a registration due a reminder now: the scan visits only those, so a
 * scan of tenants at rest costs one statement per CHUNK tenants (and one read of their config
 * items) instead of a tenant load and a query each. The condition is the scan's own
 * (dueCondition), with each tenant's thresholds and calendar day as ExpiryReminders computes them.
 * Schemas without expiry_reminders yet (not migrated) are left out; the scan skips them too.
 */
export async function tenantsWithDueReminders(db: PlatformDb, tenants: readonly { id: number; schema: string }[], now: Date): Promise<ReminderCandidates> {
  const checked = new Set<number>();
  const found = new Set<number>();
  const rows: { tenant_id: number; item_id: string; value: unknown }[] = await db
    .table('config_items')
    .whereIn('item_id', [...ITEMS])
    .whereIn('tenant_id', tenants.map((t) => t.id))
    .select('tenant_id', 'item_id', 'value');
  const values = new Map<number, Map<string, unknown>>();
  for (const r of rows) {
    try {
      const v = parseConfigValue(r.item_id, r.value);
      values.set(r.tenant_id, (values.get(r.tenant_id) ?? new Map()).set(r.item_id, v));
    } catch {
      // a value that no longer validates falls back to the default, as TenantStore.load does
    }
  }
  const wanted = tenants.flatMap((t) => {
    const config = new TenantConfig(values.get(t.id) ?? new Map());
    const thresholds = [...new Set(config.get('reminders.days_before'))].filter((d) => d > 0);
    if (thresholds.length === 0) checked.add(t.id); // reminders off: nothing to do
    return thresholds.length ? [{ ...t, thresholds, today: todayIn(config.get('tenant.timezone'), now) }] : [];
  });
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const chunk = wanted.slice(i, i + CHUNK);
    const migrated = new Set<string>(
      await db.knex('pg_catalog.pg_tables').where({ tablename: 'expiry_reminders' }).whereIn('schemaname', chunk.map((t) => t.schema)).pluck('schemaname'),
    );
    const parts = chunk.filter((t) => migrated.has(t.schema));
    if (!parts.length) continue;
    for (const t of parts) checked.add(t.id);
    const bindings: Knex.RawBinding[] = [];
    const sql = parts
      .map((t) => {
        const due = dueCondition(`${t.schema}.expiry_reminders`, t.today, t.thresholds);
        bindings.push(t.id, `${t.schema}.person_competences`, `${t.schema}.competences`, ...due.bindings);
        return `(select ?::int as id where exists (select 1 from ?? pc join ?? c on c.id = pc.competence_id where ${due.sql}))`;
      })
      .join(' union all ');
    const { rows: hits } = await db.knex.raw(sql, bindings);
    for (const h of hits as { id: number }[]) found.add(h.id);
  }
  return { checked, due: found };
}
