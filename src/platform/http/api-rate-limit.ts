import type { NextFunction, Request, Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../errors/api-error';
import { RateLimiterPool, TenantRateLimiter, type RateLimitRule } from '../rate-limit/tenant-rate-limiter';
import { requestLog, requestScope } from '../tenant-scope/request-scope';
import { ENV, LOGGER } from '../tokens';
import type { RouteDefinition } from './define-route';
import { requestCosts } from './route-cost';

const WINDOW_SECONDS = 60;

function rule(points: number): RateLimitRule {
  return {
    name: 'api',
    points,
    durationSeconds: WINDOW_SECONDS,
    message: `rate limit of ${points} points per minute reached (most calls take 1, costly ones more: x-rate-limit-cost); retry after the Retry-After seconds`,
  };
}

/** The IETF httpapi ratelimit-headers draft (structured fields, one policy named "minute"). */
function headers(points: number, res: RateLimiterRes): Record<string, string> {
  const reset = Math.max(0, Math.ceil(res.msBeforeNext / 1000));
  return {
    'RateLimit-Policy': `"minute";q=${points};w=${WINDOW_SECONDS}`,
    RateLimit: `"minute";r=${Math.max(0, res.remainingPoints)};t=${reset}`,
  };
}

/**
 * The points a caller has per minute: the tenant's api.rate_limit.per_minute, never above the
 * platform's ceiling (API_RATE_LIMIT_CEILING_PER_MINUTE; a tenant without a limit gets the
 * ceiling); null only when both are off.
 */
export function effectivePoints(configured: number | null, ceiling: number): number | null {
  if (ceiling <= 0) return configured;
  return configured === null ? ceiling : Math.min(configured, ceiling);
}

/**
 * api.rate_limit.per_minute per caller: the person once the auth schemes found one, else the
 * client address. Read from the tenant on every request, so a config change applies at once.
 * A call takes its route's cost in points (RouteDefinition.cost, default 1; never more than the
 * whole window). One Redis call (consume). Redis down: the request passes with a warning;
 * whatever it needs from Redis (the session) answers 503 itself, and an outage must not lock
 * everyone out.
 */
export function apiRateLimit(root: DependencyContainer, routes: readonly RouteDefinition[] = []) {
  const logger = root.resolve(LOGGER);
  const pool = root.resolve(RateLimiterPool);
  const ceiling = root.resolve(ENV).API_RATE_LIMIT_CEILING_PER_MINUTE;
  const costOf = requestCosts(routes);
  return async (req: Request, res: Response, next: NextFunction) => {
    const scope = requestScope(req);
    const points = effectivePoints(scope.tenant.config.get('api.rate_limit.per_minute'), ceiling);
    if (points === null) return next();
    const limiter = new TenantRateLimiter(pool, scope.tenant);
    const r = rule(points);
    const subject = scope.principal ? `person:${scope.principal.personId}` : `ip:${req.ip ?? ''}`;
    let outcome: RateLimiterRes;
    try {
      outcome = await pool.limiter(r).consume(limiter.key(r, subject), Math.min(costOf(req), points));
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        res.set(headers(points, err));
        throw ApiError.tooMany(r.message, err.msBeforeNext);
      }
      requestLog(req, logger).warn({ err }, 'API rate limit not checked: Redis not reachable');
      return next();
    }
    res.set(headers(points, outcome));
    next();
  };
}
