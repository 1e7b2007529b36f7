import type { Migration } from '../../src/platform/migrations/migration-runner';
import * as m001 from './001_tenants';
import * as m002 from './002_tenant_migration_state';
import * as m003 from './003_tenant_clusters';

/** Platform migrations in order. Names are permanent: never rename or reorder. */
export const platformMigrations: Migration[] = [
  { name: '001_tenants', up: m001.up },
  { name: '002_tenant_migration_state', up: m002.up },
  { name: '003_tenant_clusters', up: m003.up },
];
