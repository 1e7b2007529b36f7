import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import { ApiError } from '../../../platform/errors/api-error';
import { forEachBounded } from '../../../platform/migrations/migrate-all';
import { TenantImporter, ImportError } from '../tenant-importer';
import { HostName, TenantSlug } from '../tenant-import.schema';
import { SpareSchemas } from './spare-schemas';
import { CLUSTERS, type Clusters } from '../../../platform/clusters/clusters';
import { TenantDb } from '../../../platform/tenant-scope/tenant-db';
import { recordSecurityEvent } from '../../../platform/audit/security-audit';

/** One tenant of a bulk provisioning (one JSON line of `npm run tenant -- create-many`). */
export const BulkTenant = z.object({
  slug: TenantSlug,
  name: z.string().trim().min(1).max(200),
  hosts: z.array(HostName).min(1),
  cluster: z.string().optional(),
});
export type BulkTenant = z.infer<typeof BulkTenant>;

export interface BulkReport {
  created: number;
  failed: { slug: string; error: string }[];
  fromSpares: number;
  seconds: number;
  perSecond: number;
}

/**
 * Creates many empty tenants at once, `concurrency` at a time: each is its own import (platform
 * rows, a spare schema renamed, placement by the usual rule), so one bad line fails alone.
 * Spare top-ups wait until the end, so that they do not compete with the provisioning; fill
 * the spares first (`npm run tenant -- spares --count N`) for the fast path.
 */
@injectable()
export class BulkProvisioner {
  constructor(
    @inject(TenantImporter) private readonly importer: TenantImporter,
    @inject(SpareSchemas) private readonly spares: SpareSchemas,
    @inject(CLUSTERS) private readonly clusters: Clusters,
  ) {}

  async createMany(lines: unknown[], options: { concurrency?: number; via?: 'cli' | 'http'; onProgress?: (line: string) => void } = {}): Promise<BulkReport> {
    const say = options.onProgress ?? (() => {});
    const tenants = lines.map((l, i) => {
      const r = BulkTenant.safeParse(l);
      if (!r.success) throw ApiError.malformed(`tenants[${i}].${r.error.issues[0].path.join('.')}`, r.error.issues[0].message);
      return r.data;
    });
    const release = this.spares.hold();
    const report: BulkReport = { created: 0, failed: [], fromSpares: 0, seconds: 0, perSecond: 0 };
    const started = Date.now();
    try {
      await forEachBounded(tenants, options.concurrency ?? 4, async (t) => {
        try {
          const r = await this.importer.import(
            { format: 'tenant-import/1', tenant: { slug: t.slug, name: t.name, hosts: t.hosts } },
            { cluster: t.cluster, onProgress: (l) => (l.includes('(from a spare)') ? report.fromSpares++ : 0) },
          );
          await recordSecurityEvent(new TenantDb(this.clusters.admin(r.cluster), r.schema), {
            type: 'operator.imported',
            actor: 'operator',
            ip: null,
            details: { via: options.via ?? 'cli', bulk: true, cluster: r.cluster },
          });
          report.created++;
          if (report.created % 500 === 0)
            say(`${report.created}/${tenants.length} tenants created (${(report.created / ((Date.now() - started) / 1000)).toFixed(0)}/s)`);
        } catch (err) {
          if (!(err instanceof ImportError) && !(err instanceof ApiError)) throw err;
          report.failed.push({ slug: t.slug, error: err.message });
        }
      });
    } finally {
      release();
    }
    report.seconds = (Date.now() - started) / 1000;
    report.perSecond = report.created / Math.max(report.seconds, 0.001);
    say(
      `${report.created} tenants created in ${report.seconds.toFixed(1)} s (${report.perSecond.toFixed(1)}/s, ${report.fromSpares} from spares)${report.failed.length ? `; ${report.failed.length} failed` : ''}`,
    );
    for (const c of this.clusters.names) this.spares.topUpSoon(c);
    return report;
  }
}
