import type { DependencyContainer } from 'tsyringe';
import { JOBS } from '../../platform/queue/job-definition';
import { runImportJob } from './run-import';

/** The bulk import's job (on tenancy's `imports` queue, IMPORT_QUEUE). */
export function registerImportFlows(c: DependencyContainer): void {
  c.register(JOBS, { useValue: runImportJob });
}
