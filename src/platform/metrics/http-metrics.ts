import { Router, type NextFunction, type Request, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { ENV } from '../tokens';
import { maybeRequestScope } from '../tenant-scope/request-scope';
import { requirePlatformToken } from '../http/require-platform-token';
import { Metrics } from './metrics';
import { routeTemplate } from './route-template';
import { NO_TENANT } from './tenant-labels';
import { clusterMetricsReader } from './cluster-metrics';
import { ApiError } from '../errors/api-error';
import { isWarmupRequest } from '../lifecycle/request-path-warmup';

/**
 * Counts a request of a tenant (slug, or 'none') and a failed login under the tenant's bounded
 * label (tenant-labels.ts). prom-client hashes a label set on every call, so the children of the
 * labels in use are kept (at most METRICS_TENANT_LABELS tenants, 'other' and 'none').
 */
export function tenantRequestCounter(metrics: Metrics): (slug: string, loginFailed: boolean) => void {
  const perTenant = new Map<string, ReturnType<typeof metrics.tenantRequests.labels>>();
  metrics.tenantLabels.onDropped((tenant) => perTenant.delete(tenant));
  return (slug, loginFailed) => {
    const tenant = metrics.tenantLabels.hit(slug);
    let requests = perTenant.get(tenant);
    if (!requests) perTenant.set(tenant, (requests = metrics.tenantRequests.labels(tenant)));
    requests.inc();
    if (loginFailed) metrics.loginFailures.inc({ tenant });
  };
}

/** Records duration, tenant and login failures when the response has been sent. */
export function httpMetrics(container: DependencyContainer) {
  const metrics = container.resolve(Metrics);
  // prom-client hashes a label set on every call; the children of the few label sets in use are
  // kept instead (their series exist for the process' life anyway).
  const durations = new Map<string, ReturnType<typeof metrics.httpDuration.labels>>();
  const countTenant = tenantRequestCounter(metrics);
  return (req: Request, res: Response, next: NextFunction) => {
    // the start-up warm-up's 401s are not traffic: an operator would see a burst of anonymous calls at every start
    if (isWarmupRequest(req)) return next();
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = routeTemplate(req);
      const status = res.statusCode;
      const key = `${req.method} ${status} ${route}`;
      let duration = durations.get(key);
      if (!duration) durations.set(key, (duration = metrics.httpDuration.labels(req.method, route, String(status))));
      duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
      countTenant(maybeRequestScope(req)?.tenant.slug ?? NO_TENANT, req.method === 'POST' && route === '/api/login' && status === 401);
    });
    next();
  };
}

/** GET /metrics in the Prometheus text format, behind the operator token; with WEB_CONCURRENCY, of every API process. */
export function metricsRoutes(container: DependencyContainer): Router {
  const metrics = container.resolve(Metrics);
  // one of several API processes on one port: answer for all of them
  const readAll = clusterMetricsReader(metrics.registry);
  const router = Router();
  router.get('/metrics', requirePlatformToken(container.resolve(ENV)), async (_req, res) => {
    const text = readAll
      ? await readAll().catch(() => {
          throw ApiError.unavailable();
        })
      : await metrics.registry.metrics();
    res.set('Content-Type', metrics.registry.contentType);
    res.set('Cache-Control', 'no-store');
    res.send(text);
  });
  return router;
}
