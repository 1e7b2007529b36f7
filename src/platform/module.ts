import type { DependencyContainer } from 'tsyringe';
import type { RouteDefinition } from './http/define-route';

/**
 * A module as the composition root (src/features.ts) sees it: its routes and its registrations.
 * Each module's index.ts exports one; nothing else of a module is wired in by hand.
 */
export interface AppModule {
  readonly name: string;
  /** Its routes under /api, mounted (and documented) in this order. */
  readonly routes: readonly RouteDefinition<any>[];
  /**
   * Its registrations in the root container: the ports of lower modules it implements, and its
   * multi-registrations (auth schemes, background workers, jobs, queues, purgers, metrics).
   */
  register(c: DependencyContainer): void;
}
