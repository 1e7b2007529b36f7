import type { Knex } from 'knex';
import { forEachMigratedChunk, type ScanTenant } from '../outbox/pending-scan';

/**
 * Which of these tenants (all on the cluster of `knex`) have a report schedule: the scan for due
 * schedules visits only those. One statement per 200 tenants (a UNION ALL of one-row reads), where a
 * visit per tenant cost a tenant scope and a statement each: with 1,000 tenants and none or few
 * schedules, 1,000 statements every REPORT_SCHEDULE_SCAN_INTERVAL_SECONDS (issue 42's day mix found
 * them among PostgreSQL's largest costs). Schemas not migrated to report_schedules are left out.
 */
export async function tenantsWithReportSchedules(knex: Knex, tenants: readonly ScanTenant[]): Promise<Set<number>> {
  const found = new Set<number>();
  await forEachMigratedChunk(knex, tenants, 'report_schedules', async (parts) => {
    const sql = parts.map(() => '(select ?::int as id from ??.report_schedules limit 1)').join(' union all ');
    const { rows } = await knex.raw(
      sql,
      parts.flatMap((t) => [t.id, t.schema]),
    );
    for (const r of rows as { id: number }[]) found.add(r.id);
  });
  return found;
}
