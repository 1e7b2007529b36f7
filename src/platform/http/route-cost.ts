import type { Request } from 'express';
import type { MatchFunction } from 'path-to-regexp';
import type { RouteCost, RouteDefinition } from './define-route';
import { firstSegment } from './middleware-series';
import { compile } from './route-match';

/** The points a route with this cost takes for this input (query, body and path parameters, as sent). */
export function costOf(cost: RouteCost | undefined, input: Record<string, unknown>): number {
  if (cost === undefined) return 1;
  if (typeof cost === 'number') return cost;
  const v = input[cost.when.param];
  const given = v !== undefined && v !== null && v !== '';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a parsed input value (string, number or boolean) compared as text
  return given && (cost.when.equals === undefined || String(v) === cost.when.equals) ? cost.heavier : cost.base;
}

/** The largest number of points a call of the route may take (OpenAPI x-rate-limit-cost). */
export function maxCost(cost: RouteCost | undefined): number {
  if (cost === undefined) return 1;
  return typeof cost === 'number' ? cost : Math.max(cost.base, cost.heavier);
}

interface Costed {
  method: string;
  match: MatchFunction<Record<string, string>>;
  cost: RouteCost | undefined;
}

/**
 * The rate limiter runs before the routes, so it finds the request's route itself: the routes
 * grouped by first path segment (as mountRoutes does), tried in order with the same path options;
 * only the groups holding a route that costs more than 1 are kept, so most calls cost one Map
 * lookup. No match (an unknown path, the raw file download) costs 1.
 */
export function requestCosts(routes: readonly RouteDefinition[]): (req: Request) => number {
  const costly = new Set(routes.filter((r) => maxCost(r.cost) !== 1).map((r) => firstSegment(r.path)));
  const groups = new Map<string, Costed[]>();
  for (const r of routes) {
    const segment = firstSegment(r.path);
    if (!costly.has(segment)) continue;
    groups.set(segment, [...(groups.get(segment) ?? []), { method: r.method.toUpperCase(), match: compile(r.path), cost: r.cost }]);
  }
  return (req) => {
    const group = groups.get(firstSegment(req.path));
    if (!group) return 1;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    for (const c of group) {
      if (c.method !== method) continue;
      let found;
      try {
        found = c.match(req.path);
      } catch {
        return 1; // a bad percent-encoding: the router answers it
      }
      if (!found) continue;
      const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {};
      return costOf(c.cost, { ...(req.query as object), ...body, ...found.params });
    }
    return 1;
  };
}
