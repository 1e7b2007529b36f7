import { inject, injectAll, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';
import type { Knex } from 'knex';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ENV, KNEX, TENANT_POOLS } from '../tokens';
import type { Env } from '../config/env';
import { TenantLabels } from './tenant-labels';
import type { TenantPools } from '../db/tenant-pools';
import { QueueRegistry } from '../queue/queue-registry';
import { ROOT_CONTAINER } from '../queue/job-definition';
import { readSharedCounter } from './shared-counters';
import { TenantDataCache } from '../cache/tenant-data-cache';

/** Gives up on a slow dependency so a scrape never hangs on Redis or PostgreSQL. */
export async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Metrics a module adds to the registry (messaging: outbox age, delivery failures), registered like BACKGROUND_WORKERS. */
export interface MetricsSource {
  /** `labels`: the bounded tenant labels every per-tenant metric uses (tenant-labels.ts). */
  addTo(registry: Registry, labels: TenantLabels): void;
}
export const METRICS_SOURCES: InjectionToken<MetricsSource> = Symbol('MetricsSources');

/**
 * The Prometheus metrics of one container. Each container has its own Registry (tests build
 * several containers in one process; the global default registry would mix them up).
 * Gauges that read Redis or PostgreSQL do so only when scraped.
 */
@injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route template, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** The tenants with a label of their own (METRICS_TENANT_LABELS); the rest are `other`. */
  readonly tenantLabels: TenantLabels;

  readonly tenantRequests = new Counter({
    name: 'tenant_http_requests_total',
    help: "HTTP requests per tenant (tenant slug; 'other' for tenants past METRICS_TENANT_LABELS; 'none' for requests without a tenant)",
    labelNames: ['tenant'] as const,
    registers: [this.registry],
  });

  readonly loginFailures = new Counter({
    name: 'login_failures_total',
    help: "POST /api/login answered 401 (wrong user name or password), per tenant ('other': tenants past METRICS_TENANT_LABELS)",
    labelNames: ['tenant'] as const,
    registers: [this.registry],
  });

  constructor(
    @inject(ENV) env: Env,
    @inject(KNEX) knex: Knex,
    @inject(TENANT_POOLS) tenantPools: TenantPools,
    // Queues are looked up at scrape time: resolving QueueRegistry when the app is built
    // would fix its queue prefix before tests (or tools) have set theirs.
    @inject(ROOT_CONTAINER) root: DependencyContainer,
    @injectAll(METRICS_SOURCES, { isOptional: true }) sources: MetricsSource[] = [],
  ) {
    this.tenantLabels = new TenantLabels(env.METRICS_TENANT_LABELS);
    // a tenant that loses its own label loses its series; its later counts go to `other`
    this.tenantLabels.onDropped((tenant) => {
      this.tenantRequests.remove(tenant);
      this.loginFailures.remove(tenant);
    });
    // The event-loop delay histogram samples every 100 ms, not every 10 ms (prom-client's default):
    // a timer firing 100 times a second kept an idle API process at ~0.004 cores.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });

    // Bumped in the worker process (see shared-counters.ts), read from Redis when scraped.
    new Counter({
      name: 'job_final_failures_total',
      // read from Redis or PostgreSQL: every API process reports the same value (cluster-metrics.ts)
      aggregator: 'max',
      help: 'Background jobs that failed on their last attempt (or permanently), per queue',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        const rows = await withTimeout(readSharedCounter(root, 'job-final-failures'), 2000).catch(() => []);
        for (const {
          labels: [queue],
          value,
        } of rows)
          this.inc({ queue }, value);
      },
    });

    const shareCounter = (name: string, help: string, key: 'waits' | 'refusals' | 'borrows') =>
      new Counter({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(tenantPools.shareCounts[key]);
        },
      });
    shareCounter('db_tenant_share_waits_total', "Queries that waited because their tenant held its share of the group's connections", 'waits');
    shareCounter(
      'db_tenant_share_borrows_total',
      "Queries that ran past their tenant's share on a connection of the group no other tenant was waiting for",
      'borrows',
    );
    shareCounter('db_tenant_share_refusals_total', 'Queries refused (503) after waiting DATABASE_TENANT_WAIT_MS for their tenant share', 'refusals');

    new Counter({
      name: 'tenant_data_cache_lookups_total',
      help: 'Cached GET answers asked for (src/platform/cache): result hit, shared (a load already under way), miss, bypass (caches off or the change listener away)',
      labelNames: ['result'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        // looked up at scrape time, as the queues are: a container without the cache answers nothing
        if (!root.isRegistered(TenantDataCache, true)) return;
        for (const [result, n] of Object.entries(root.resolve(TenantDataCache).lookups)) this.inc({ result }, n);
      },
    });

    new Gauge({
      name: 'queue_jobs',
      // read from Redis or PostgreSQL: every API process reports the same value (cluster-metrics.ts)
      aggregator: 'max',
      help: 'BullMQ jobs per queue and state (read at scrape time)',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        // Redis away: the gauge is left empty rather than failing the whole scrape.
        const counts = await withTimeout(root.resolve(QueueRegistry).counts(), 2000).catch(() => ({}));
        for (const [queue, byState] of Object.entries(counts)) {
          for (const [state, n] of Object.entries(byState)) this.set({ queue, state }, n);
        }
      },
    });

    // knex exposes its tarn pool; absent until the first query created it.
    type Pool = { numUsed(): number; numFree(): number; numPendingAcquires(): number; max: number };
    const pools = (): [string, Knex][] => [['platform', knex], ...tenantPools.groups.map((g, i): [string, Knex] => [`tenants-${i}`, g])];
    const poolGauge = (name: string, help: string, read: (p: Pool) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['pool'] as const,
        registers: [this.registry],
        collect() {
          for (const [label, k] of pools()) {
            const p = (k.client as { pool?: Pool }).pool;
            this.set({ pool: label }, p ? read(p) : 0);
          }
        },
      });
    poolGauge('db_pool_used_connections', 'PostgreSQL connections in use', (p) => p.numUsed());
    poolGauge('db_pool_free_connections', 'PostgreSQL connections idle in the pool', (p) => p.numFree());
    poolGauge('db_pool_pending_acquires', 'Queries waiting for a PostgreSQL connection', (p) => p.numPendingAcquires());
    poolGauge('db_pool_max_connections', 'Largest pool size (platform: DATABASE_POOL_MAX; each tenant group: its share)', (p) => p.max);
    for (const source of sources) source.addTo(this.registry, this.tenantLabels);
  }
}
