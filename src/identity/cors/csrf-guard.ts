import type { NextFunction, Request, Response } from 'express';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { maybeRequestScope } from '../../platform/tenant-scope/request-scope';

const WRITES = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);
/**
 * The SAML Assertion Consumer Service (POST /api/sso/<id>/acs) is posted to by the IdP's page, from
 * the IdP's site, by design (HTTP-POST binding). Its credential is the signed response answering a
 * pending request of this tenant, used once; it reads no session, so a tg-visit cookie the browser
 * sends along (SameSite=None deployments) grants nothing there and must not make it a 403.
 */
const CROSS_SITE_BY_DESIGN = /^\/sso\/[^/]+\/acs\/?$/i;
const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** The origin a browser request comes from: Origin, else the origin of Referer; undefined when neither. */
export function requestOrigin(headers: Request['headers']): string | undefined {
  const origin = headers.origin;
  if (typeof origin === 'string' && origin !== '') return origin;
  const referer = headers.referer;
  if (typeof referer !== 'string' || referer === '') return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return 'null';
  }
}

/**
 * An origin may write with the tenant's session cookie when it is listed in cors.origins, or
 * when it is the tenant itself: http(s), one of the tenant's host names, and the port the
 * request was sent to (a Host without port stands for the scheme's default port, as behind a
 * TLS-terminating proxy). Another port on the same host is another site.
 */
export function originAllowed(origin: string, tenant: Tenant, requestHost: string): boolean {
  if (tenant.config.get('cors.origins').includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const defaultPort = DEFAULT_PORT[url.protocol];
  if (!defaultPort || !tenant.hosts.includes(url.hostname.toLowerCase())) return false;
  const hostPort = /:(\d+)$/.exec(requestHost)?.[1] ?? defaultPort;
  return (url.port || defaultPort) === hostPort;
}

/**
 * CSRF defence for the session cookie (ASVS 4.2.2): a write authenticated by tg-visit
 * must not come from another site. SameSite=Lax already keeps the cookie off cross-site
 * POSTs in browsers; this also covers SameSite=None deployments and same-site neighbours.
 * Requests without Origin and Referer (server to server) and SWT requests carry no ambient
 * credentials, so they pass. POST /api/login is held to the same origins whoever calls (login CSRF,
 * issue 40): a browser there carries an Origin; a server-to-server login carries none and passes.
 */
export function csrfGuard() {
  return (req: Request, _res: Response, next: NextFunction) => {
    const scope = maybeRequestScope(req);
    if (scope && isLogin(req)) {
      // Login CSRF: a foreign page must not log the visitor's browser into an account of its choosing.
      const origin = requestOrigin(req.headers);
      if (origin === undefined || originAllowed(origin, scope.tenant, req.host ?? '')) return next();
      throw new ApiError(403, "cross-site login refused: POST /api/login from a browser must come from the tenant's own host or an origin in cors.origins");
    }
    if (!WRITES.has(req.method) || scope?.principal?.via !== 'session' || CROSS_SITE_BY_DESIGN.test(req.path)) return next();
    const origin = requestOrigin(req.headers);
    if (origin === undefined || originAllowed(origin, scope.tenant, req.host ?? '')) return next();
    throw new ApiError(403, "cross-site request refused: a session-cookie request must come from the tenant's own host or an origin in cors.origins");
  };
}

/** POST /api/login (as express matches it: case-insensitive, a trailing slash allowed), which opens a session without one. */
function isLogin(req: Request): boolean {
  return req.method === 'POST' && /^\/login\/?$/i.test(req.path);
}
