import type { TenantConfig } from '../config-items/tenant-config';

export type TenantStatus = 'active' | 'suspended';

export interface Tenant {
  id: number;
  slug: string;
  name: string;
  schema: string;
  status: TenantStatus;
  hosts: string[];
  config: TenantConfig;
  /** The PostgreSQL cluster its schema lives on (`main` when absent); see src/platform/clusters. */
  cluster?: string;
  /** Set while the tenant's last migration failed: it answers 503 until one succeeds. */
  migrationFailedAt?: Date | null;
}
