import cors, { type CorsOptions } from 'cors';
import type { NextFunction, Request, Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { TenantResolver } from '../platform/tenancy/tenant-resolver';

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
    const hostname = (req as Request).hostname;
    if (!origin || !hostname) return callback(null, { origin: false });
    resolver.byHostName(hostname).then(
      (tenant) => callback(null, tenant?.config.get('cors.origins').includes(origin) ? grant(origin) : { origin: false }),
      (err: Error) => callback(err),
    );
  });
  return (req: Request, res: Response, next: NextFunction) => {
    // The answer depends on Origin whether or not it is granted; caches must key on it.
    res.vary('Origin');
    middleware(req, res, next);
  };
}
