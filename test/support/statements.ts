import type { Knex } from 'knex';
import { CLUSTERS } from '../../src/platform/clusters/clusters';
import type { TestApp } from './test-app';

/**
 * Every SQL statement `fn` makes on the connection group the API uses for the tenant's requests,
 * in order: for tests that prove how many round trips a request costs.
 */
export async function tenantStatements(t: TestApp, tenantId: number, fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const onQuery = (q: { sql: string }) => void seen.push(q.sql);
  const knex: Knex = t.container.resolve(CLUSTERS).forTenant({ id: tenantId });
  knex.on('query', onQuery);
  try {
    await fn();
  } finally {
    knex.off('query', onQuery);
  }
  return seen;
}
