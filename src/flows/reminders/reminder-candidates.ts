import type { Knex } from 'knex';
import type { TenantStore } from '../../platform/tenant-scope/tenant-store';
import type { Clusters } from '../../platform/clusters/clusters';
import { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { todayIn } from '../../platform/time/tenant-clock';
import { schemasWithReminderRows } from '../../messaging';
import { dueRegistrations } from './due-registrations';

/** Tenants per statement: one UNION ALL of indexed probes. */
const CHUNK = 200;
const ITEMS = ['reminders.days_before', 'tenant.timezone'] as const;

export interface ReminderCandidates {
  /** Tenants this check settled: nothing due (the scan may skip them), or something due. */
  checked: Set<number>;
  /** Of those, the tenants with a registration due a reminder now. */
  due: Set<number>;
}

interface Candidate {
  id: number;
  schema: string;
  thresholds: number[];
  today: string;
}

/**
 * Which of these tenants have a registration due a reminder now: the scan visits only those, so a
 * scan of tenants at rest costs one statement per CHUNK tenants of a cluster (and one read of their
 * config items) instead of a tenant load and a query each. The condition is the scan's own
 * (dueRegistrations), with each tenant's thresholds and calendar day as SendExpiryRemindersFlow computes
 * them. Schemas without expiry_reminders yet (not migrated) are left out; the scan skips them too.
 */
export async function tenantsWithDueReminders(
  store: TenantStore,
  clusters: Clusters,
  tenants: readonly { id: number; schema: string; cluster?: string | null }[],
  now: Date,
): Promise<ReminderCandidates> {
  const result: ReminderCandidates = { checked: new Set(), due: new Set() };
  const configs = await store.configs(
    tenants.map((t) => t.id),
    ITEMS,
  );
  const byCluster = new Map<string, Candidate[]>();
  for (const t of tenants) {
    const config = configs.get(t.id)!;
    const thresholds = [...new Set(config.get('reminders.days_before'))].filter((d) => d > 0);
    if (thresholds.length === 0) {
      result.checked.add(t.id); // reminders off: nothing to do
      continue;
    }
    const cluster = t.cluster ?? 'main';
    if (!clusters.has(cluster)) continue; // not settled: the scan visits it and reports what fails
    if (!byCluster.has(cluster)) byCluster.set(cluster, []);
    byCluster.get(cluster)!.push({ id: t.id, schema: t.schema, thresholds, today: todayIn(config.get('tenant.timezone'), now) });
  }
  for (const [cluster, candidates] of byCluster) {
    const knex = clusters.admin(cluster);
    for (let i = 0; i < candidates.length; i += CHUNK) await probe(knex, candidates.slice(i, i + CHUNK), result);
  }
  return result;
}

async function probe(knex: Knex, chunk: readonly Candidate[], result: ReminderCandidates): Promise<void> {
  const migrated = await schemasWithReminderRows(
    knex,
    chunk.map((t) => t.schema),
  );
  const parts = chunk.filter((t) => migrated.has(t.schema));
  if (!parts.length) return;
  for (const t of parts) result.checked.add(t.id);
  const probes = parts.map((t) =>
    dueRegistrations(new TenantDb(knex, t.schema), t.today, t.thresholds)
      .limit(1)
      .select(knex.raw('?::int as id', [t.id]))
      .toSQL(),
  );
  const sql = probes.map((q) => `(${q.sql})`).join(' union all ');
  const { rows } = await knex.raw(
    sql,
    probes.flatMap((q) => [...q.bindings]),
  );
  for (const r of rows as { id: number }[]) result.due.add(r.id);
}
