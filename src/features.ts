import type { DependencyContainer } from 'tsyringe';
import type { RouteDefinition } from './platform/http/define-route';
import { configItemRoutes } from './configitems/config-items.routes';

/** Every feature's routes, in one place. */
export const allRoutes: RouteDefinition<any>[] = [...configItemRoutes];

/** Registrations beyond @injectable classes (multi-registrations such as auth schemes). */
export function registerFeatures(_c: DependencyContainer): void {}
