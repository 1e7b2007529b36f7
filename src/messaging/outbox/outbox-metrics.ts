import { inject, injectable, type DependencyContainer } from 'tsyringe';
import { Counter, Gauge, type Registry } from 'prom-client';
import { ROOT_CONTAINER } from '../../platform/queue/job-definition';
import { readSharedCounter } from '../../platform/metrics/shared-counters';
import { withTimeout, type MetricsSource } from '../../platform/metrics/metrics';
import { TenantTotalsFold, type TenantLabels } from '../../platform/metrics/tenant-labels';
import { OutboxAge } from './outbox-age';

/** The outbox's metrics on /metrics: failed deliveries and the age of the oldest undelivered message. */
@injectable()
export class OutboxMetrics implements MetricsSource {
  constructor(@inject(ROOT_CONTAINER) private readonly root: DependencyContainer) {}

  addTo(registry: Registry, labels: TenantLabels): void {
    const root = this.root;
    // the workers' counts per tenant, folded into the bounded labels (the sum of the rest is `other`)
    const failures = new TenantTotalsFold();
    // Bumped in the worker process (see shared-counters.ts), read from Redis when scraped.
    new Counter({
      name: 'message_delivery_failures_total',
      // read from Redis or PostgreSQL: every API process reports the same value (cluster-metrics.ts)
      aggregator: 'max',
      help: "Message deliveries that ended failed (permanent error or last attempt), per tenant ('other': the sum of the tenants past METRICS_TENANT_LABELS) and medium",
      labelNames: ['tenant', 'medium'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const rows = await withTimeout(readSharedCounter(root, 'delivery-failures'), 2000).catch(() => null);
        if (!rows) return; // Redis away: nothing this scrape (the fold keeps what it knew)
        const totals = rows.map(({ labels: [tenant, medium], value }) => ({ tenant, rest: [medium], value }));
        for (const {
          labels: [tenant, medium],
          value,
        } of failures.fold(totals, labels))
          this.inc({ tenant, medium }, value);
      },
    });
    // The outbox reader is looked up at scrape time, as the queues are.
    new Gauge({
      name: 'outbox_oldest_undelivered_age_seconds',
      // read from Redis or PostgreSQL: every API process reports the same value (cluster-metrics.ts)
      aggregator: 'max',
      help: "Age of the oldest message delivery still queued or sending, per tenant ('other': the oldest of the tenants past METRICS_TENANT_LABELS; bounded scan, cached briefly)",
      labelNames: ['tenant'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const ages = new Map<string, number>();
        for (const { tenant, ageSeconds } of await root.resolve(OutboxAge).read()) {
          const label = labels.label(tenant);
          ages.set(label, Math.max(ages.get(label) ?? 0, ageSeconds));
        }
        for (const [tenant, ageSeconds] of ages) this.set({ tenant }, ageSeconds);
      },
    });
  }
}
