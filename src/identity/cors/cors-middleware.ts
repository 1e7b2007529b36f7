import cors, { type CorsOptions } from 'cors';
import type { NextFunction, Request, Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import { tenantHostName } from '../../platform/tenant-scope/host-name';

export const CORS_METHODS = ['GET', 'POST', 'PUT', 'DELETE'];
export const CORS_HEADERS = ['Content-Type', 'Authorization', 'X-Request-Id'];

const grant = (origin: string): CorsOptions => ({
  origin,
  credentials: true,
  methods: CORS_METHODS,
  allowedHeaders: CORS_HEADERS,
  exposedHeaders: ['X-Request-Id'],
  maxAge: 600,
});

export interface CorsDecision {
  allowed: boolean;
  reason: string;
}

/**
 * Whether a browser page at `origin` may call the tenant's API with credentials, and why
 * (the middleware and the admin page's CORS checker share it). Browsers send the origin
 * exactly, so only an exact entry counts; the near misses are named to explain a refusal.
 */
export function corsDecision(allowedOrigins: readonly string[], origin: string): CorsDecision {
  if (allowedOrigins.includes(origin)) return { allowed: true, reason: `${origin} is listed in cors.origins` };
  let parsed: URL | null = null;
  try {
    parsed = new URL(origin);
  } catch {
    /* explained below */
  }
  if (!parsed || parsed.origin !== origin) {
    return { allowed: false, reason: `${origin} is not an origin as a browser sends it (scheme://host[:port], lower case, no path or trailing slash)` };
  }
  const sameHost = allowedOrigins.filter((o) => {
    try {
      return new URL(o).hostname === parsed.hostname;
    } catch {
      return false;
    }
  });
  if (sameHost.length > 0) {
    return { allowed: false, reason: `not listed in cors.origins; the same host is listed with another scheme or port: ${sameHost.join(', ')}` };
  }
  if (allowedOrigins.length === 0) return { allowed: false, reason: 'cors.origins is empty: no other site may call this API from a browser' };
  return { allowed: false, reason: 'not listed in cors.origins' };
}

/**
 * Per-tenant CORS: an Origin listed in the host's tenant's cors.origins is echoed with
 * credentials; any other Origin gets no CORS header at all. Runs before authentication
 * (preflights carry no credentials, and a refused SWT token's 401 must stay readable by
 * an allowed page). The tenant comes from the resolver's cache, which config changes
 * invalidate, so edits to cors.origins apply without restart.
 */
export function tenantCors(root: DependencyContainer) {
  const resolver = root.resolve(TenantResolver);
  const middleware = cors((req, callback) => {
    const origin = req.headers.origin;
    const hostname = tenantHostName(req as Request);
    if (!origin || !hostname) return callback(null, { origin: false });
    resolver.byHostName(hostname).then(
      (tenant) => callback(null, tenant && corsDecision(tenant.config.get('cors.origins'), origin).allowed ? grant(origin) : { origin: false }),
      (err: Error) => callback(err),
    );
  });
  return (req: Request, res: Response, next: NextFunction) => {
    // The answer depends on Origin whether or not it is granted; caches must key on it.
    res.vary('Origin');
    middleware(req, res, next);
  };
}
