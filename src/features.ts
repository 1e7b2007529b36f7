import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { join } from 'node:path';
import type { RouteDefinition } from './platform/http/define-route';
import { AUTH_SCHEMES } from './platform/auth/auth-scheme';
import { ENV } from './platform/tokens';
import { configItemRoutes } from './configitems/config-items.routes';
import { loginRoutes } from './accounts/login.routes';
import { SessionAuthScheme } from './accounts/session-auth-scheme';
import { eventRoutes } from './events/events.routes';
import { personEventRoutes } from './personevents/personevents.routes';
import { participantRoutes } from './participants/participants.routes';
import { locationRoutes } from './locations/locations.routes';
import { surveyAnswerRoutes } from './surveyanswers/surveyanswers.routes';
import { fileRoutes } from './files/files.routes';
import { FILE_STORE, LocalFileStore } from './files/file-store';

/** Every feature's routes, in one place (paths are relative to /api). */
export const allRoutes: RouteDefinition<any>[] = [
  ...loginRoutes,
  ...configItemRoutes,
  ...eventRoutes,
  ...personEventRoutes,
  ...participantRoutes,
  ...locationRoutes,
  ...surveyAnswerRoutes,
  ...fileRoutes,
];

/** Multi-registrations (auth schemes, background workers) and replaceable stores. */
export function registerFeatures(c: DependencyContainer): void {
  c.register(AUTH_SCHEMES, { useClass: SessionAuthScheme });
  c.register(FILE_STORE, { useFactory: instanceCachingFactory((x) => new LocalFileStore(join(x.resolve(ENV).DATA_DIR, 'files'))) });
}
