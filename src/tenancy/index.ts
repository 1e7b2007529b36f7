/**
 * The tenancy module: tenants as a whole (tenant-import/1 import and export, archives, the
 * operator API under /platform, the admin service and the CLI's operations), config items
 * (GET/PUT /api/configitems, history, checks) and the tenant admin page; tenant placement over
 * PostgreSQL clusters, online moves and spare schemas (tenants/placement). The top module:
 * imports the identity, messaging and courses faces.
 */
import type { AppModule } from '../platform/module';
import { BACKGROUND_WORKERS } from '../platform/queue/worker-runtime';
import { SpareKeeper } from './tenants/placement/spare-keeper';
import { configItemCheckRoutes } from './configitems/config-item-checks.routes';
import { configItemAdminRoutes } from './configitems/config-items-admin.routes';
import { configItemRoutes } from './configitems/config-items.routes';

export const tenancyModule: AppModule = {
  name: 'tenancy',
  routes: [...configItemCheckRoutes, ...configItemAdminRoutes, ...configItemRoutes],
  register(c) {
    // Keeps each cluster's spare (pre-migrated) schemas topped up, in the worker process.
    c.register(BACKGROUND_WORKERS, { useClass: SpareKeeper });
  },
};

/** The operator API (/platform, outside any tenant) and the admin page, mounted by app.ts. */
export { platformRoutes } from './tenants/platform.routes';
export { platformPaths } from './tenants/platform.openapi';
export { adminPageRoutes } from './admin/admin-page.routes';
/** The CLI's operations (npm run tenant). */
export { TenantAdminService, type TenantSummary } from './tenants/tenant-admin.service';
export { TenantOperator } from './tenants/tenant-operator';
export { ARCHIVE_FORMAT } from './tenants/archive/tenant-archive.format';
export { TenantImporter } from './tenants/tenant-importer';
/** Placement over PostgreSQL clusters (npm run tenant -- move | clusters | spares | create-many). */
export { TenantMover } from './tenants/placement/tenant-mover';
export { SpareSchemas } from './tenants/placement/spare-schemas';
export { TenantPlacement } from './tenants/placement/placement';
export { BulkProvisioner } from './tenants/placement/bulk-provisioner';
