import type { Migration } from '../../src/platform/migrations/migration-runner';
import * as m001 from './001_tenants';

/** Platform migrations in order. Names are permanent: never rename or reorder. */
export const platformMigrations: Migration[] = [{ name: '001_tenants', up: m001.up }];
