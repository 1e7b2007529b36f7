import type { Knex } from 'knex';
import { PrincipalCache } from '../../src/platform/auth/principal-cache';
import type { TestApp } from './test-app';

/**
 * Waits until every tenant_data_changed notification committed so far (a login's writes, the
 * previous test's) has reached the API's listener: PostgreSQL delivers notifications in commit
 * order, so once a marker sent now has arrived, every earlier one has. Without it, a late
 * notification may drop an entry a test is about to prove cached (a slow machine, not a stale cache).
 */
export async function cachesSettled(t: TestApp, knex: Knex, schema: string): Promise<void> {
  const versions = t.container.resolve(PrincipalCache);
  const before = versions.dataVersion(schema);
  // statement-level trigger: fires with no row changed
  await knex.withSchema(schema).table('locations').where({ id: -1 }).update({ name: 'x' });
  for (let i = 0; i < 200 && versions.dataVersion(schema) === before; i++) await new Promise((r) => setTimeout(r, 25));
  if (versions.dataVersion(schema) === before) throw new Error('the marker notification never arrived');
}
