import express, { type NextFunction, type Request, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { tenantMiddleware } from '../../platform/http/tenant-middleware';
import { requestScope } from '../../platform/tenant-scope/request-scope';
import { series } from '../../platform/http/middleware-series';
import { ClientCredentialsGrant, OAuthError } from '../../identity';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** RFC 6749 §5.2 JSON for every failure of the token endpoint (never the API envelope). */
function oauthFailure(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
  if (err instanceof OAuthError) {
    res
      .status(err.status)
      .set({ ...NO_STORE, ...err.headers })
      .json(err.body);
    return;
  }
  if (err instanceof ApiError && err.status < 500) {
    // unknown host (404), suspended tenant (423), body too large or malformed (400/413)
    res
      .status(err.status)
      .set({ ...NO_STORE, ...err.headers })
      .json({ error: 'invalid_request', error_description: err.message });
    return;
  }
  next(err);
}

/**
 * POST /oauth/token on the tenant's host (RFC 6749 §4.4, client credentials): the tenant from the
 * Host header as for /api, a form (or JSON) body, the grant in the identity module
 * (ClientCredentialsGrant). Answers RFC 6749 JSON with Cache-Control: no-store.
 */
export function oauthTokenHttp(container: DependencyContainer): express.Router {
  const router = express.Router();
  router.post(
    '/token',
    series(express.urlencoded({ extended: false, limit: '16kb' }), express.json({ limit: '16kb' }), tenantMiddleware(container)),
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const scope = requestScope(req);
        const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
        const answer = await scope.container.resolve(ClientCredentialsGrant).token({ authorization: req.headers.authorization, body, ip: req.ip ?? '' });
        res.status(200).set(NO_STORE).json(answer);
      } catch (err) {
        next(err);
      }
    },
  );
  router.all('/token', (_req, res) => {
    res
      .status(405)
      .set({ Allow: 'POST', ...NO_STORE })
      .json({ error: 'invalid_request', error_description: 'use POST' });
  });
  router.use(oauthFailure);
  return router;
}
