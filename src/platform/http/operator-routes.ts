import express, { type RequestHandler } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { ApiError } from '../errors/api-error';
import { requireUser, type RouteDefinition } from './define-route';
import { access, type AccessCheck } from './access';
import { mountRoutes, type RouteScope } from './mount-routes';
import { series, whenBody } from './middleware-series';
import { inputGuard } from './input-guard';

export interface OperatorLimits {
  /** Largest JSON body (whole tenant documents arrive here), e.g. '100mb'. */
  jsonLimit: string;
  /** How deep bodies and parsed values may nest (organisation and competence trees nest deeper than parameters). */
  maxDepth: number;
}

/**
 * The operator API: defineRoute routes mounted under their base path (app.ts: /platform) outside any
 * tenant. No tenant resolution, no login, rate limit, cross-site check or Idempotency-Key (those are
 * the tenant API's); handlers resolve from the root container and ctx.tenant has none. Every route
 * declares `access: access.operator`, and the operator's check also runs for every request under
 * the path before its body is read, so a caller without the token gets 401 (404 with no token
 * configured) whatever the path and however large the body, as the router before it did.
 * Then the body parsers, the input guard, the routes (419/420 from their zod input), and a 404
 * in the envelope for any other path.
 */
export function mountOperatorRoutes(root: DependencyContainer, routes: readonly RouteDefinition[], limits: OperatorLimits): RequestHandler {
  for (const route of routes) {
    if (route.access !== access.operator) throw new Error(`operator route ${route.method.toUpperCase()} ${route.path} must declare access: access.operator`);
  }
  const scope: RouteScope = { tenant: null, container: root, principal: null };
  const resolve = root.resolve.bind(root);
  const gate: RequestHandler = async (req, _res, next) => {
    const check: AccessCheck = {
      principal: null,
      get user() {
        return requireUser(null);
      },
      path: req.path,
      method: req.method.toLowerCase() as AccessCheck['method'],
      headers: req.headers,
      resolve,
    };
    await access.operator.check(check, undefined);
    next();
  };
  return series(
    gate,
    whenBody(express.json({ limit: limits.jsonLimit }), express.urlencoded({ extended: true, limit: '1mb' })),
    inputGuard(limits.maxDepth),
    // OPTIONS is no operator call: the 404 below, as under the router this replaced (no Allow answer).
    skipOptions(mountRoutes(routes, { scope: () => scope, maxDepth: limits.maxDepth })),
    (req) => {
      throw new ApiError(404, `unknown operator call: ${req.method} ${req.baseUrl}${req.path}`);
    },
  );
}

function skipOptions(handler: RequestHandler): RequestHandler {
  return (req, res, next) => (req.method === 'OPTIONS' ? next() : handler(req, res, next));
}
