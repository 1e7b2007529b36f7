import type { DependencyContainer } from 'tsyringe';
import type { RouteDefinition } from './platform/http/define-route';
import { AUTH_SCHEMES } from './platform/auth/auth-scheme';
import { configItemRoutes } from './configitems/config-items.routes';
import { loginRoutes } from './accounts/login.routes';
import { SessionAuthScheme } from './accounts/session-auth-scheme';
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
  ...configItemRoutes,
  ...competenceRoutes,
  ...catalogueTreeRoutes,
  ...roleRoutes,
  ...organisationalFunctionRoutes,
  ...personCompetenceRoutes,
  ...competenceLevelRoutes,
  ...changesRoutes,
];

/** Multi-registrations (auth schemes, background workers). */
export function registerFeatures(c: DependencyContainer): void {
  c.register(AUTH_SCHEMES, { useClass: SessionAuthScheme });
}
