import type { NextFunction, Request, Response } from 'express';
import { match, type MatchFunction } from 'path-to-regexp';
import { setRouteTemplate } from '../metrics/route-template';
import type { HttpMethod } from './define-route';

/** What a group of routes dispatches to: one compiled path and method per route. */
export interface MatchedRoute {
  method: HttpMethod;
  path: string;
  handle: (req: Request, res: Response) => Promise<void>;
}

interface Compiled {
  method: string;
  path: string;
  match: MatchFunction<Record<string, string>>;
  /** Route._methods() of express's router: the method, and HEAD for a GET route. */
  allow: string[];
  handle: MatchedRoute['handle'];
  base: string | undefined;
  template: string;
}

/** express's router decodes each parameter so; a bad percent-encoding is its 400 URIError. */
function decodeParam(val: string): string {
  if (typeof val !== 'string' || val.length === 0 || val.indexOf('%') === -1) return val;
  try {
    return decodeURIComponent(val);
  } catch (err) {
    if (err instanceof URIError) {
      err.message = `Failed to decode param '${val}'`;
      Object.assign(err, { status: 400, statusCode: 400 });
    }
    throw err;
  }
}

/** The options express's router gives a route: any case, a trailing slash allowed, whole path. */
export function compile(path: string): MatchFunction<Record<string, string>> {
  return match<Record<string, string>>(path === '/' ? path : path.replace(/\/+$/, ''), { sensitive: false, end: true, trailing: true, decode: decodeParam });
}

/** The Allow answer of express's router to an OPTIONS call no route handles. */
function sendOptions(res: Response, methods: string[], next: NextFunction): void {
  try {
    const allow = [...new Set(methods)].sort().join(', ');
    res.setHeader('Allow', allow);
    res.setHeader('Content-Length', Buffer.byteLength(allow));
    res.setHeader('Content-Type', 'text/plain');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(allow);
  } catch (err) {
    next(err);
  }
}

/**
 * The routes of one group matched as express's router matches them (same path-to-regexp, same
 * options, routes tried in order, HEAD served by GET routes, a method mismatch falls through, OPTIONS
 * answered with the matching routes' methods), without a Router: express's handle/next/Layer/Route
 * dispatch built closures and match objects on every request (router.next and handle were 13% of
 * the bytes GET /api/person allocated).
 */
export function routeMatcher(routes: readonly MatchedRoute[]): (req: Request, res: Response, next: NextFunction) => void {
  const compiled: Compiled[] = routes.map((r) => ({
    method: r.method.toUpperCase(),
    path: r.path,
    match: compile(r.path),
    allow: r.method === 'get' ? ['GET', 'HEAD'] : [r.method.toUpperCase()],
    handle: r.handle,
    base: undefined,
    template: r.path,
  }));
  return (req, res, next) => {
    const path = req.path;
    const method = req.method;
    let allowed: string[] | undefined;
    for (const route of compiled) {
      let found;
      try {
        found = route.match(path);
      } catch (err) {
        return next(err);
      }
      if (!found) continue;
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) {
        req.params = found.params;
        const base = req.baseUrl ?? '';
        if (route.base !== base) {
          route.base = base;
          route.template = `${base}${route.path}`;
        }
        setRouteTemplate(req, route.template);
        try {
          route.handle(req, res).then(undefined, (err: unknown) => next(err ?? new Error('Rejected promise')));
        } catch (err) {
          next(err);
        }
        return;
      }
      if (method === 'OPTIONS') (allowed ??= []).push(...route.allow);
    }
    if (allowed) sendOptions(res, allowed, next);
    else next();
  };
}
