import type { DependencyContainer } from 'tsyringe';
import type { RouteDefinition } from './platform/http/define-route';
import { AUTH_SCHEMES } from './platform/auth/auth-scheme';
import { configItemRoutes } from './configitems/config-items.routes';
import { loginRoutes } from './accounts/login.routes';
import { configItemAdminRoutes } from './configitems/config-items-admin.routes';
import { SessionAuthScheme } from './accounts/session-auth-scheme';
import { RedisKeysPurger, TENANT_PURGERS } from './tenants/tenant-purger';

/** Every feature's routes, in one place (paths are relative to /api). */
export const allRoutes: RouteDefinition<any>[] = [...loginRoutes, ...configItemAdminRoutes, ...configItemRoutes];

/** Multi-registrations (auth schemes, background workers). */
export function registerFeatures(c: DependencyContainer): void {
  c.register(AUTH_SCHEMES, { useClass: SessionAuthScheme });
  // Queued jobs of a deleted tenant: the messaging feature registers its queue purger here too.
  c.register(TENANT_PURGERS, { useClass: RedisKeysPurger });
}
