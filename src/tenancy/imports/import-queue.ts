import { z } from 'zod';
import type { QueueDefinition } from '../../platform/queue/job-definition';

/**
 * Bulk imports run on a queue of their own, one at a time per worker process: an import of
 * 100,000 rows must not hold up mail delivery, and two at once would only share the same cores.
 */
export const IMPORT_QUEUE: QueueDefinition = { name: 'imports', concurrency: 1 };

/** The job of one import (src/flows/imports/run-import.job.ts): the tenant and the import's id, never rows. */
export const IMPORT_JOB = 'imports.run';
export const ImportJobData = z.object({ tenantId: z.number().int().positive(), importId: z.string().uuid() });
export type ImportJobData = z.infer<typeof ImportJobData>;
