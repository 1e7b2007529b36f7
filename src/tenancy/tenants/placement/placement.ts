import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { KNEX } from '../../../platform/tokens';
import { ApiError } from '../../../platform/errors/api-error';
import { PlatformDb } from '../../../platform/tenant-scope/platform-db';
import { CLUSTERS, UnknownClusterError, type Clusters } from '../../../platform/clusters/clusters';

/**
 * Where a new tenant goes: the cluster asked for, or the one with the fewest tenants (ties: the
 * first declared, main before TENANT_DATABASE_URLS in their order).
 */
@injectable()
export class TenantPlacement {
  constructor(
    @inject(KNEX) private readonly knex: Knex,
    @inject(CLUSTERS) private readonly clusters: Clusters,
  ) {}

  /** Checks a cluster name given by an operator (420 naming `cluster` when unknown). */
  checked(requested: unknown): string {
    if (typeof requested !== 'string' || !requested) throw ApiError.malformed('cluster', 'must be the name of a cluster');
    try {
      return this.clusters.checked(requested);
    } catch (err) {
      if (err instanceof UnknownClusterError) throw ApiError.malformed('cluster', err.message);
      throw err;
    }
  }

  async choose(requested?: string | null): Promise<string> {
    if (requested !== undefined && requested !== null && requested !== '') return this.checked(requested);
    if (this.clusters.names.length === 1) return this.clusters.names[0];
    return pickFewest(this.clusters.names, await this.counts());
  }

  /** Tenants per cluster, every declared cluster listed (0 when empty). */
  async counts(): Promise<Map<string, number>> {
    const rows: { cluster: string; n: string }[] = await this.knex
      .withSchema(PlatformDb.SCHEMA)
      .table('tenants')
      .groupBy('cluster')
      .select('cluster', this.knex.raw('count(*) as n'));
    const counts = new Map(this.clusters.names.map((n) => [n, 0]));
    for (const r of rows) counts.set(r.cluster, Number(r.n));
    return counts;
  }
}

/** The rule itself: fewest tenants among the declared clusters, ties to the first declared. */
export function pickFewest(names: readonly string[], counts: ReadonlyMap<string, number>): string {
  let best = names[0];
  for (const n of names) if ((counts.get(n) ?? 0) < (counts.get(best) ?? 0)) best = n;
  return best;
}
