import type { DependencyContainer } from 'tsyringe';

/**
 * A module as the composition root (src/features.ts) sees it: its registrations. Each module's
 * index.ts exports one. A module carries no routes: the HTTP surface is src/routes/, above the modules.
 */
export interface AppModule {
  readonly name: string;
  /**
   * Its registrations in the root container: the ports of lower modules it implements, and its
   * multi-registrations (auth schemes, background workers, jobs, queues, purgers, metrics).
   */
  register(c: DependencyContainer): void;
}
