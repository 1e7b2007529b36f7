import type { DependencyContainer } from 'tsyringe';
import type { RouteDefinition } from './platform/http/define-route';
import { AUTH_SCHEMES } from './platform/auth/auth-scheme';
import { configItemRoutes } from './configitems/config-items.routes';
import { loginRoutes } from './accounts/login.routes';
import { configItemAdminRoutes } from './configitems/config-items-admin.routes';
import { SessionAuthScheme } from './accounts/session-auth-scheme';
import { signonRoutes } from './sso/signon.routes';
import { SwtAuthScheme } from './sso/swt-auth-scheme';

import { personRoutes } from './persons/persons.routes';
import { organisationRoutes } from './organisations/organisations.routes';
import { competenceRoutes } from './competences/competences.routes';
import { catalogueTreeRoutes } from './competences/catalogue-tree.routes';
import { roleRoutes } from './roles/roles.routes';
import { organisationalFunctionRoutes } from './roles/organisational-functions.routes';
import { personCompetenceRoutes } from './personcompetences/personcompetences.routes';
import { competenceLevelRoutes } from './personcompetences/competence-level.routes';
import { changesRoutes } from './changes/changes.routes';

/** Every feature's routes, in one place (paths are relative to /api). */
export const allRoutes: RouteDefinition<any>[] = [
  ...loginRoutes,
  ...signonRoutes,
  ...configItemAdminRoutes,
  ...configItemRoutes,
  ...personRoutes,
  ...organisationRoutes,
  ...competenceRoutes,
  ...catalogueTreeRoutes,
  ...roleRoutes,
  ...organisationalFunctionRoutes,
  ...personCompetenceRoutes,
  ...competenceLevelRoutes,
  ...changesRoutes,
];
import { RedisKeysPurger, TENANT_PURGERS } from './tenants/tenant-purger';

/** Multi-registrations (auth schemes, background workers). */
export function registerFeatures(c: DependencyContainer): void {
  // An explicit Authorization: SWT header decides before any cookie the browser may also send.
  c.register(AUTH_SCHEMES, { useClass: SwtAuthScheme });
  c.register(AUTH_SCHEMES, { useClass: SessionAuthScheme });
  // Queued jobs of a deleted tenant: the messaging feature registers its queue purger here too.
  c.register(TENANT_PURGERS, { useClass: RedisKeysPurger });
}
