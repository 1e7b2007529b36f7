/**
 * Bounded tenant labels for /metrics (issue 41): with 10,000 tenants, a series per tenant and
 * metric is a cardinality problem for Prometheus. The `limit` tenants with the most HTTP traffic
 * (METRICS_TENANT_LABELS) keep their slug as the label; every other tenant is counted under
 * `other`. Requests without a tenant keep `none`.
 *
 * - While fewer than `limit` tenants have been seen, each keeps its own label (first come): a
 *   deployment with fewer tenants than the limit has the series it always had.
 * - Every `rerankMs` the set is ranked again by traffic (requests in the last interval plus half of
 *   the score before, so a burst fades within a few intervals); ties keep the tenants already in.
 *   A tenant that leaves the set loses its series (listeners remove them), its later counts go to
 *   `other`; a tenant that joins starts a series of its own at zero.
 * - The ranking is per process (in memory): with WEB_CONCURRENCY above 1 the merged /metrics can
 *   name up to `limit` tenants per process.
 */
export const OTHER_TENANTS = 'other';
/** Requests without a tenant (/healthz, unknown hosts): not a tenant, always their own label. */
export const NO_TENANT = 'none';
/** How often the labelled set is ranked again. */
export const RERANK_MS = 10 * 60_000;

export class TenantLabels {
  private readonly labelled = new Set<string>();
  /** Requests per tenant since the last ranking, and the decayed score before it. */
  private window = new Map<string, number>();
  private readonly scores = new Map<string, number>();
  private nextRank: number;
  private readonly dropped: ((slug: string) => void)[] = [];

  constructor(
    readonly limit: number,
    readonly rerankMs = RERANK_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.nextRank = now() + rerankMs;
  }

  /** One request of the tenant: counted for the ranking; returns its label. */
  hit(slug: string): string {
    if (slug === NO_TENANT) return slug;
    this.window.set(slug, (this.window.get(slug) ?? 0) + 1);
    return this.label(slug);
  }

  /** The tenant's label now (its slug, or `other`), without counting traffic. */
  label(slug: string): string {
    if (slug === NO_TENANT) return slug;
    if (this.now() >= this.nextRank) this.rank();
    if (this.labelled.has(slug)) return slug;
    if (this.labelled.size < this.limit) {
      this.labelled.add(slug);
      return slug;
    }
    return OTHER_TENANTS;
  }

  /** Called with each tenant that loses its own label (to remove its series). */
  onDropped(fn: (slug: string) => void): void {
    this.dropped.push(fn);
  }

  /** Tenants with their own label now. */
  get size(): number {
    return this.labelled.size;
  }

  private rank(): void {
    this.nextRank = this.now() + this.rerankMs;
    for (const [slug, score] of this.scores) {
      const next = score / 2;
      if (next < 0.5 && !this.window.has(slug)) this.scores.delete(slug);
      else this.scores.set(slug, next);
    }
    for (const [slug, n] of this.window) this.scores.set(slug, (this.scores.get(slug) ?? 0) + n);
    this.window = new Map();
    const incumbent = (slug: string) => (this.labelled.has(slug) ? 1 : 0);
    const ranked = [...this.scores.entries()].sort((a, b) => b[1] - a[1] || incumbent(b[0]) - incumbent(a[0])).slice(0, this.limit);
    const keep = new Set(ranked.map(([slug]) => slug));
    // room left: tenants labelled before keep their label (fewer tenants with traffic than the limit)
    for (const slug of this.labelled) if (keep.size < this.limit) keep.add(slug);
    for (const slug of this.labelled) {
      if (keep.has(slug)) continue;
      this.labelled.delete(slug);
      for (const fn of this.dropped) fn(slug);
    }
    for (const slug of keep) this.labelled.add(slug);
  }
}

/**
 * Per-tenant totals read at scrape time (counters kept in Redis by the workers) folded into the
 * bounded labels, keeping every series a counter: `other` never goes down when a tenant joins the
 * labelled set (its past counts stay in `other`) and does not jump when one leaves it (only its
 * counts since the last scrape are added). One instance per metric, kept across scrapes.
 */
export class TenantTotalsFold {
  /** per tenant and other labels: the label and total of the last scrape */
  private previous = new Map<string, { label: string; total: number; rest: string[] }>();
  /** per other labels (e.g. medium): what `other` carries beyond its tenants' totals now */
  private readonly offsets = new Map<string, number>();

  fold(rows: readonly { tenant: string; rest: string[]; value: number }[], labels: TenantLabels): { labels: string[]; value: number }[] {
    const out = new Map<string, { labels: string[]; value: number }>();
    const add = (label: string, rest: string[], value: number) => {
      const key = [label, ...rest].join('\u0000');
      const series = out.get(key) ?? { labels: [label, ...rest], value: 0 };
      series.value += value;
      out.set(key, series);
    };
    const shift = (rest: string[], by: number) => {
      const key = rest.join('\u0000');
      this.offsets.set(key, (this.offsets.get(key) ?? 0) + by);
    };
    const seen = new Map<string, { label: string; total: number; rest: string[] }>();
    for (const { tenant, rest, value } of rows) {
      const label = labels.label(tenant);
      const key = [tenant, ...rest].join('\u0000');
      const before = this.previous.get(key);
      if (before && before.label === OTHER_TENANTS && label !== OTHER_TENANTS) shift(rest, before.total);
      if (before && before.label !== OTHER_TENANTS && label === OTHER_TENANTS) shift(rest, -before.total);
      seen.set(key, { label, total: value, rest });
      add(label, rest, value);
    }
    // a tenant gone from the totals (deleted): what it gave `other` stays there
    for (const [key, before] of this.previous) if (!seen.has(key) && before.label === OTHER_TENANTS) shift(before.rest, before.total);
    this.previous = seen;
    for (const [key, offset] of this.offsets) if (offset !== 0) add(OTHER_TENANTS, key === '' ? [] : key.split('\u0000'), offset);
    return [...out.values()];
  }
}
