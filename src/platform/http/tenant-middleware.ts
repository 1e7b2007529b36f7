import type { NextFunction, Request, Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { ApiError } from '../errors/api-error';
import { TenantResolver } from '../tenant-scope/tenant-resolver';
import { attachRequestScope, openTenantScope } from '../tenant-scope/request-scope';
import { AUTH_SCHEMES, type AuthScheme } from '../auth/auth-scheme';
import { RecentPersons } from '../lifecycle/recent-persons';
import { isValidHostName, tenantHostName } from '../tenant-scope/host-name';
import { CLIENT_IP } from '../tokens';

/** The same 404 for every host without a tenant; a malformed one is not echoed back. */
export function unknownTenant(host: string): ApiError {
  return new ApiError(404, isValidHostName(host) ? `unknown tenant for host ${host}` : 'unknown tenant: the Host header is not a valid host name');
}

/**
 * Host -> tenant -> child container; then the auth schemes find the principal. `anonymous`: a
 * public path of the tenant's host (GET /verify, /.well-known/jwks.json) runs no auth scheme, so a
 * cookie or an Authorization header the caller happens to send changes nothing there; `authenticate:
 * false` likewise leaves the principal null, for a router that proves the caller itself (SCIM's Bearer check).
 */
export function tenantMiddleware(root: DependencyContainer, options: { anonymous?: boolean; authenticate?: boolean } = {}) {
  const resolver = root.resolve(TenantResolver);
  const runsSchemes = !options.anonymous && options.authenticate !== false;
  const schemes: AuthScheme[] = runsSchemes && root.isRegistered(AUTH_SCHEMES, true) ? root.resolveAll(AUTH_SCHEMES) : [];
  const recent = runsSchemes && root.isRegistered(RecentPersons, true) ? root.resolve(RecentPersons) : null;
  return async (req: Request, _res: Response, next: NextFunction) => {
    if (!req.host) throw new ApiError(404, 'unknown tenant: the request has no Host header');
    const host = tenantHostName(req);
    if (!host) throw unknownTenant(req.host);
    const tenant = await resolver.byHostName(host);
    if (!tenant) throw unknownTenant(host);
    if (tenant.status === 'suspended') {
      throw new ApiError(423, `tenant ${tenant.slug} is suspended; contact the service operator`);
    }
    if (tenant.migrationFailedAt) {
      // the reason is for operators (npm run migrate, /platform/migrate), not for the tenant's users
      throw new ApiError(503, `tenant ${tenant.slug} is being upgraded; try again later`, {}, { 'Retry-After': '60' });
    }
    const scope = { tenant, container: openTenantScope(root, tenant), principal: null as any };
    scope.container.register(CLIENT_IP, { useValue: req.ip ?? null });
    attachRequestScope(req, scope);
    for (const scheme of schemes) {
      const principal = await scheme.authenticate(req, scope);
      if (principal) {
        scope.principal = principal;
        if (principal.personId > 0) recent?.mark(tenant.id, principal.personId);
        break;
      }
    }
    next();
  };
}
