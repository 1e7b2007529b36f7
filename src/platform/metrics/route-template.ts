import type { Request } from 'express';

const TEMPLATE = Symbol('routeTemplate');

/**
 * The route template ('/api/persons/:person_id') of a request, or 'unmatched'. Read while
 * the route runs: once an error leaves the router, express has restored req.baseUrl.
 */
export function routeTemplate(req: Request): string {
  const remembered = (req as any)[TEMPLATE] as string | undefined;
  if (remembered) return remembered;
  return req.route ? `${req.baseUrl ?? ''}${req.route.path}` : 'unmatched';
}

/** Remembers the template of the matched route (route-match.ts, before the route runs). */
export function setRouteTemplate(req: Request, template: string): void {
  (req as any)[TEMPLATE] = template;
}
