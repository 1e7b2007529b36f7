import type { DependencyContainer } from 'tsyringe';

/**
 * A module as the composition root (src/features.ts) sees it: its registrations. Each module's
 * index.ts exports one. A module carries no routes: the HTTP surface is src/routes/, above the modules.
 */
export interface AppModule {
  readonly name: string;
  /**
   * Its registrations in the root container: what it implements of the kernel's extension points
   * (background workers, jobs, queues, purgers, metrics, GDPR holders) and its own singletons. A
   * module implements nothing of another module: what spans modules is a flow (src/flows).
   */
  register(c: DependencyContainer): void;
}
