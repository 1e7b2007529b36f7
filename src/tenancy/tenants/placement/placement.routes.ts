import type { Request, Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { okEnvelope } from '../../../platform/http/envelope';
import { ApiError } from '../../../platform/errors/api-error';
import { CLUSTERS } from '../../../platform/clusters/clusters';
import { TenantAdminService, type OperatorOrigin } from '../tenant-admin.service';
import { TenantMover } from './tenant-mover';
import { TenantPlacement } from './placement';
import { SpareSchemas } from './spare-schemas';
import { BulkProvisioner } from './bulk-provisioner';

/** Longest old-copy grace an HTTP caller may ask for: the request waits for it. */
const MAX_DROP_AFTER_SECONDS = 300;

/**
 * /platform/clusters, /platform/tenants/bulk and /platform/tenants/:slug/move, mounted inside
 * platformRoutes (behind its token check and body parsers).
 */
export function placementRoutes(router: Router, container: DependencyContainer, origin: (req: Request) => OperatorOrigin): void {
  router.get('/clusters', async (_req, res) => {
    const counts = await container.resolve(TenantPlacement).counts();
    const spares = container.resolve(SpareSchemas);
    const clusters = [];
    for (const name of container.resolve(CLUSTERS).names) clusters.push({ name, tenants: counts.get(name) ?? 0, spare_schemas: await spares.count(name) });
    res.json(okEnvelope('clusters', clusters));
  });
  router.post('/tenants/bulk', async (req, res) => {
    const tenants = req.body?.tenants;
    if (!Array.isArray(tenants)) throw ApiError.missing('tenants');
    const lines: string[] = [];
    const r = await container.resolve(BulkProvisioner).createMany(tenants, { via: origin(req).via, onProgress: (l) => lines.push(l) });
    res.status(201).json({
      ...okEnvelope('tenants', [], `${r.created} tenants created, ${r.failed.length} failed`),
      created: r.created,
      failed: r.failed,
      from_spares: r.fromSpares,
      seconds: r.seconds,
      progress: lines,
    });
  });
  router.post('/tenants/:slug/move', async (req, res) => {
    const to = req.body?.to ?? (req.query as Record<string, unknown>).to;
    if (to === undefined || to === '') throw ApiError.missing('to');
    if (typeof to !== 'string') throw ApiError.malformed('to', 'must be the name of a cluster');
    const raw = req.body?.drop_after_seconds ?? (req.query as Record<string, unknown>).drop_after_seconds ?? 15;
    const dropAfter = Number(raw);
    if (!Number.isFinite(dropAfter) || dropAfter < 0 || dropAfter > MAX_DROP_AFTER_SECONDS) throw ApiError.malformed('drop_after_seconds', `must be 0-${MAX_DROP_AFTER_SECONDS}`);
    const lines: string[] = [];
    const r = await container.resolve(TenantMover).move(req.params.slug as string, to, { dropAfterMs: dropAfter * 1000, onProgress: (l) => lines.push(l) });
    const summary = await container.resolve(TenantAdminService).by(origin(req)).get(r.slug);
    res.json({
      ...okEnvelope('tenants', [summary], `tenant ${r.slug} moved from ${r.from} to ${r.to}; writes paused ${r.writePauseMs} ms`),
      move: { from: r.from, to: r.to, tables: r.tables, rows: r.rows, changed_rows: r.changedRows, write_pause_ms: r.writePauseMs, seconds: r.seconds },
      progress: lines,
    });
  });
}
