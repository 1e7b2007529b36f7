/**
 * The tenancy module: tenants as a whole (tenant-import/1 import and export, archives, the
 * operator API under /platform, the admin service and the CLI's operations), config items
 * (GET/PUT /api/configitems, history, checks); tenant placement over PostgreSQL clusters, online
 * moves and spare schemas (tenants/placement). The top module: imports the messaging, courses
 * and people faces. Its /api routes and the tenant admin page are in src/routes/tenancy.
 */
import type { AppModule } from '../platform/module';
import { BACKGROUND_WORKERS } from '../platform/queue/worker-runtime';
import { QUEUES } from '../platform/queue/job-definition';
import { SpareKeeper } from './tenants/placement/spare-keeper';
import { MoveSweeper } from './tenants/placement/move-leftovers';
import { IMPORT_QUEUE } from './imports/import-queue';

export const tenancyModule: AppModule = {
  name: 'tenancy',
  register(c) {
    // Keeps each cluster's spare (pre-migrated) schemas topped up, in the worker process.
    c.register(BACKGROUND_WORKERS, { useClass: SpareKeeper });
    // Cleans up after killed tenant movers (triggers, partial copies, old copies), in the worker process.
    c.register(BACKGROUND_WORKERS, { useClass: MoveSweeper });
    // Bulk imports (POST /api/imports) run on their own queue; the job is src/flows/imports'.
    c.register(QUEUES, { useValue: IMPORT_QUEUE });
  },
};

/** For its routes (src/routes/tenancy): config items, their history and the admin's view. */
export { ConfigItemView, presentConfigItem } from './config-items-admin/config-items.presenter';
export { ConfigItemsAdminService, AdminConfigItemView, ConfigItemChangeView } from './config-items-admin/config-items-admin.service';
/** For the operator API (src/routes/tenancy/platform*.routes.ts): what its calls take and check. */
export { TenantImport, TenantSlug } from './tenants/tenant-import.schema';
export { FirstAdmin } from './tenants/tenant-operator';
export { BulkTenant } from './tenants/placement/bulk-provisioner';
/** Who acts as the operator (CLI or /platform), for the flows of src/flows/tenants. */
export type { OperatorOrigin } from './tenants/tenant-admin.service';
/** The CLI's operations (npm run tenant). */
export { TenantAdminService, type TenantSummary } from './tenants/tenant-admin.service';
export { TenantOperator } from './tenants/tenant-operator';
export { ARCHIVE_FORMAT } from './tenants/archive/tenant-archive.format';
export { TenantImporter } from './tenants/tenant-importer';
/** Placement over PostgreSQL clusters (npm run tenant -- move | clusters | spares | create-many). */
export { TenantMover } from './tenants/placement/tenant-mover';
export { MoveLeftovers } from './tenants/placement/move-leftovers';
export { SpareSchemas } from './tenants/placement/spare-schemas';
export { TenantPlacement } from './tenants/placement/placement';
export { BulkProvisioner } from './tenants/placement/bulk-provisioner';
/** Bulk imports (POST /api/imports, src/flows/imports): their rows and progress, their queue and job. */
export {
  ImportsRepository,
  IMPORT_TYPES,
  MAX_KEPT_FAILURES,
  type ImportType,
  type ImportRow,
  type ImportState,
  type ImportCounts,
  type RowProblem,
  type FileFormat,
} from './imports/imports.repository';
export { IMPORT_QUEUE, IMPORT_JOB, ImportJobData } from './imports/import-queue';
