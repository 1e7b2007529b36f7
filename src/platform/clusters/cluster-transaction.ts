import type { Knex } from 'knex';
import { MAIN_CLUSTER, type Clusters } from './clusters';

/**
 * Work that writes the platform schema and a tenant schema together (a new tenant, a config
 * change with its audit entry, an operator action). On `main` both are one transaction, as
 * before clusters existed. On another cluster they are two, nested: the tenant's commits first,
 * then the platform's, so a failure between the two leaves at worst tenant-side rows without
 * their platform rows (a schema nobody is placed on, an audit entry of a change that did not
 * happen), never a tenant whose platform rows point at a schema that is not there.
 */
export async function platformAndTenant<T>(
  clusters: Clusters,
  cluster: string | null | undefined,
  fn: (platform: Knex.Transaction, tenant: Knex.Transaction) => Promise<T>,
): Promise<T> {
  const platform = clusters.admin(MAIN_CLUSTER);
  const name = clusters.checked(cluster);
  if (name === MAIN_CLUSTER) return platform.transaction((trx) => fn(trx, trx));
  return platform.transaction((platformTrx) => clusters.admin(name).transaction((tenantTrx) => fn(platformTrx, tenantTrx)));
}
