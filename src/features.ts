import type { DependencyContainer } from 'tsyringe';
import type { RouteDefinition } from './platform/http/define-route';
import { AUTH_SCHEMES } from './platform/auth/auth-scheme';
import { configItemRoutes } from './configitems/config-items.routes';
import { loginRoutes } from './accounts/login.routes';
import { SessionAuthScheme } from './accounts/session-auth-scheme';
import { eventRoutes } from './events/events.routes';
import { personEventRoutes } from './personevents/personevents.routes';
import { participantRoutes } from './participants/participants.routes';

/** Every feature's routes, in one place (paths are relative to /api). */
export const allRoutes: RouteDefinition<any>[] = [
  ...loginRoutes,
  ...configItemRoutes,
  ...eventRoutes,
  ...personEventRoutes,
  ...participantRoutes,
];

/** Multi-registrations (auth schemes, background workers). */
export function registerFeatures(c: DependencyContainer): void {
  c.register(AUTH_SCHEMES, { useClass: SessionAuthScheme });
}
