import { join } from 'node:path';
import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { AppModule } from './platform/module';
import { ENV, REDIS } from './platform/tokens';
import { BACKGROUND_WORKERS } from './platform/queue/worker-runtime';
import { QUEUE_PREFIX, QUEUE_REDIS, ROOT_CONTAINER } from './platform/queue/job-definition';
import { QueueRegistry } from './platform/queue/queue-registry';
import { JobWorkers, RETRY_POLICY, DEFAULT_RETRY_POLICY } from './platform/queue/job-worker';
import { Metrics } from './platform/metrics/metrics';
import { PrincipalCache } from './platform/auth/principal-cache';
import { RedisKeysPurger, TENANT_PURGERS } from './platform/tenant-scope/tenant-purgers';
import { identityModule } from './identity';
import { tenancyModule } from './tenancy';
import { peopleModule } from './people';
import { catalogueModule } from './catalogue';
import { messagingModule } from './messaging';
import { coursesModule } from './courses';
import { SharedDataVersions } from './platform/cache/shared-data-versions';
import { TenantDataCache } from './platform/cache/tenant-data-cache';
import { RecentPersons, RecentPersonsPurger } from './platform/lifecycle/recent-persons';
import { FILE_STORE, LocalFileStore } from './platform/files/file-store';
import { registerFlows } from './flows';

/** Every module, in the order they register (their routes are src/routes/index.ts's). */
export const MODULES: readonly AppModule[] = [identityModule, tenancyModule, peopleModule, catalogueModule, messagingModule, coursesModule];

/** The kernel's registrations, then each module's (workers, jobs, queues), the flows' (auth schemes, GDPR holders, the outbox relay and jobs that span modules), then the job workers. */
export function registerFeatures(c: DependencyContainer): void {
  // Everything a deleted tenant keeps outside its schema: the kernel's Redis keys first, then the modules' (queued jobs, files).
  c.register(TENANT_PURGERS, { useClass: RedisKeysPurger });
  c.register(TENANT_PURGERS, { useClass: RecentPersonsPurger });
  // Queues, pooled transports: one per container (tests build several containers in a process).
  c.register(ROOT_CONTAINER, { useValue: c });
  if (!c.isRegistered(QUEUE_REDIS)) c.register(QUEUE_REDIS, { useToken: REDIS });
  c.register(QUEUE_PREFIX, { useValue: 'bull' });
  c.registerSingleton(QueueRegistry);
  // Prometheus registry per container (never prom-client's global one).
  c.registerSingleton(Metrics);
  c.registerSingleton(PrincipalCache);
  c.registerSingleton(TenantDataCache);
  c.registerSingleton(SharedDataVersions);
  c.registerSingleton(RecentPersons);
  c.register(RETRY_POLICY, { useValue: DEFAULT_RETRY_POLICY });
  // One byte store for uploads (courses' files) and tenant archives (tenancy), under DATA_DIR/files.
  c.register(FILE_STORE, { useFactory: instanceCachingFactory((x) => new LocalFileStore(join(x.resolve(ENV).DATA_DIR, 'files'))) });
  for (const m of MODULES) m.register(c);
  registerFlows(c);
  // After the modules' workers (the outbox relay starts before the job workers).
  c.register(BACKGROUND_WORKERS, { useClass: JobWorkers });
}
