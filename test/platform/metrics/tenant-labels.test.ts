import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/test-app';
import { Metrics } from '../../../src/platform/metrics/metrics';
import { tenantRequestCounter } from '../../../src/platform/metrics/http-metrics';
import { NO_TENANT, OTHER_TENANTS, TenantLabels, TenantTotalsFold } from '../../../src/platform/metrics/tenant-labels';
import { bumpSharedCounter } from '../../../src/platform/metrics/shared-counters';
import { QueueRegistry } from '../../../src/platform/queue/queue-registry';
import { OutboxAge } from '../../../src/messaging/outbox/outbox-age';

/** Issue 41, item 5: per-tenant labels on /metrics are bounded (METRICS_TENANT_LABELS). */

const TENANT_METRICS = ['tenant_http_requests_total', 'login_failures_total', 'message_delivery_failures_total', 'outbox_oldest_undelivered_age_seconds'];

describe('TenantLabels', () => {
  it('labels the first tenants up to the limit, the rest other; none stays none', () => {
    const labels = new TenantLabels(2);
    expect(['a', 'b', 'c', 'a', NO_TENANT].map((s) => labels.hit(s))).toEqual(['a', 'b', OTHER_TENANTS, 'a', NO_TENANT]);
    expect(labels.size).toBe(2);
  });

  it('ranks by traffic at each interval: the busiest tenants take the labels, a dropped tenant is reported and goes to other', () => {
    let now = 0;
    const labels = new TenantLabels(2, 1000, () => now);
    const dropped: string[] = [];
    labels.onDropped((s) => dropped.push(s));
    labels.hit('quiet-1');
    labels.hit('quiet-2');
    for (let i = 0; i < 50; i++) labels.hit('busy');
    expect(labels.label('busy')).toBe(OTHER_TENANTS);
    now = 1000;
    expect(labels.label('busy')).toBe('busy');
    expect(labels.size).toBe(2);
    expect(dropped).toHaveLength(1);
    expect(labels.label(dropped[0])).toBe(OTHER_TENANTS);
    // a burst fades: after intervals without traffic a steadily busy tenant takes the label back
    for (let round = 1; round <= 6; round++) {
      for (let i = 0; i < 5; i++) labels.hit('steady');
      now = 1000 * (round + 1);
    }
    expect(labels.label('steady')).toBe('steady');
  });
});

describe('TenantTotalsFold', () => {
  it('keeps other a counter when tenants join or leave the labelled set', () => {
    let now = 0;
    const labels = new TenantLabels(1, 1000, () => now);
    const fold = new TenantTotalsFold();
    const other = (series: { labels: string[]; value: number }[]) => series.find((s) => s.labels[0] === OTHER_TENANTS)?.value ?? 0;
    labels.hit('a');
    const totals = { a: 5, b: 7, c: 1 };
    const rows = () => Object.entries(totals).map(([tenant, value]) => ({ tenant, rest: ['email'], value }));
    const seen: number[] = [];
    seen.push(other(fold.fold(rows(), labels))); // a own; b, c other = 8
    totals.b += 2;
    for (let i = 0; i < 20; i++) labels.hit('b');
    now = 1000; // b takes a's place: its past counts stay in other, a's later ones go there
    seen.push(other(fold.fold(rows(), labels)));
    totals.a += 3;
    totals.c += 1;
    seen.push(other(fold.fold(rows(), labels)));
    // 8 (b 7, c 1); b leaves other: other stays 8 (b's 9 are its own series now); a joins other:
    // only its 3 counts since the last scrape are added, and c's 1
    expect(seen).toEqual([8, 8, 12]);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
  });
});

/**
 * The series count of /metrics with N tenants, each with traffic, a failed login, a failed
 * delivery and an outbox age: `before` is every tenant labelled (the behaviour before the bound,
 * METRICS_TENANT_LABELS above the tenant count), `after` the default (100).
 */
async function seriesFor(tenants: number, limit?: number): Promise<{ tenantSeries: number; all: number }> {
  const t: TestApp = await createTestApp(limit === undefined ? {} : { METRICS_TENANT_LABELS: String(limit) });
  try {
    const metrics = t.container.resolve(Metrics);
    const count = tenantRequestCounter(metrics);
    const slugs = Array.from({ length: tenants }, (_, i) => `tenant-${i}`);
    for (const [i, slug] of slugs.entries()) {
      for (let n = 0; n <= i % 3; n++) count(slug, false);
      count(slug, true);
    }
    count(NO_TENANT, false);
    for (let i = 0; i < slugs.length; i += 500) {
      await Promise.all(slugs.slice(i, i + 500).map((slug) => bumpSharedCounter(t.container, 'delivery-failures', [slug, 'email'])));
    }
    t.container.register(OutboxAge, { useValue: { read: async () => slugs.map((tenant, i) => ({ tenant, ageSeconds: i % 7 })) } as unknown as OutboxAge });
    const text = await metrics.registry.metrics();
    const samples = text.split('\n').filter((l) => l && !l.startsWith('#'));
    return { tenantSeries: samples.filter((l) => TENANT_METRICS.some((m) => l.startsWith(`${m}{`))).length, all: samples.length };
  } finally {
    await t.container.resolve(QueueRegistry).close();
    await t.close();
  }
}

describe('the series count of /metrics', { timeout: 120_000 }, () => {
  it('is bounded by METRICS_TENANT_LABELS whatever the number of tenants (measured at 1,000 and 10,000)', async () => {
    const figures: Record<string, { tenantSeries: number; all: number }> = {};
    for (const n of [1_000, 10_000]) {
      figures[`${n} before`] = await seriesFor(n, 100_000);
      figures[`${n} after`] = await seriesFor(n);
    }
    console.log(
      Object.entries(figures)
        .map(([k, v]) => `${k}: ${v.tenantSeries} tenant series, ${v.all} in all`)
        .join('\n'),
    );
    // before: a series per tenant and metric; after: 100 tenants, other and none
    expect(figures['10000 before'].tenantSeries).toBeGreaterThanOrEqual(4 * 10_000);
    expect(figures['1000 after'].tenantSeries).toBeLessThanOrEqual(4 * 101 + 1);
    expect(figures['10000 after'].tenantSeries).toBe(figures['1000 after'].tenantSeries);
  });
});
