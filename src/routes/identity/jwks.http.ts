import express, { type Request, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { tenantMiddleware } from '../../platform/http/tenant-middleware';
import { requestScope } from '../../platform/tenant-scope/request-scope';
import { TenantRateLimiter, type RateLimitRule } from '../../platform/rate-limit/tenant-rate-limiter';
import { CredentialKeys } from '../../identity';

/** Verifiers cache the set (Cache-Control below); a client address asking more than this is not verifying. */
export const JWKS_PER_ADDRESS: RateLimitRule = {
  name: 'jwks:address',
  points: 120,
  durationSeconds: 60,
  message: 'too many requests for the key set; retry after the Retry-After seconds',
};

/**
 * GET /.well-known/jwks.json on the tenant's host (issue 38): the public keys of the tenant's
 * verifiable credentials (RFC 7517 JWK Set: the active key and retired keys while a credential they
 * signed is valid). No login; rate limited per client address; cacheable for 5 minutes.
 */
export function jwksHttp(container: DependencyContainer): express.Router {
  const router = express.Router();
  router.get('/jwks.json', tenantMiddleware(container, { anonymous: true }), async (req: Request, res: Response) => {
    const scope = requestScope(req);
    await scope.container.resolve(TenantRateLimiter).hit(JWKS_PER_ADDRESS, req.ip ?? '');
    const keys = await scope.container.resolve(CredentialKeys).published(new Date());
    res.status(200).set({ 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' }).json({ keys });
  });
  return router;
}
