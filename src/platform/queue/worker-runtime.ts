import type { DependencyContainer, InjectionToken } from 'tsyringe';

/** A long-running background loop (BullMQ worker, outbox relay, ...). */
export interface BackgroundWorker {
  readonly name: string;
  start(): Promise<void>;
  /** Finishes or releases in-flight work, then returns. */
  stop(): Promise<void>;
}

export const BACKGROUND_WORKERS: InjectionToken<BackgroundWorker> = Symbol('BackgroundWorkers');

export async function startWorkers(c: DependencyContainer): Promise<{ names: string[]; stop(): Promise<void> }> {
  const workers = c.isRegistered(BACKGROUND_WORKERS, true) ? c.resolveAll(BACKGROUND_WORKERS) : [];
  for (const w of workers) await w.start();
  return {
    names: workers.map((w) => w.name),
    stop: async () => {
      await Promise.allSettled(workers.map((w) => w.stop()));
    },
  };
}
