import type { Logger } from 'pino';

/** Time for closing connections after the drain (queues, Redis, pools); past it the process exits anyway. */
export const CLOSE_TIMEOUT_MS = 5_000;

/**
 * Runs `steps` once on the first SIGTERM or SIGINT, then exits 0. The steps drain (each bounded by
 * SHUTDOWN_GRACE_MS itself); closing what is left gets CLOSE_TIMEOUT_MS more. A second signal
 * while draining exits at once with 1.
 */
export function onShutdownSignal(logger: Logger, steps: { drain: () => Promise<unknown>; close: () => Promise<unknown> }): void {
  let stopping = false;
  let first: NodeJS.Signals | null = null;
  const run = async (signal: NodeJS.Signals) => {
    if (stopping) {
      if (signal !== 'SIGINT' || first !== 'SIGINT') return;
      logger.warn('SIGINT again: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    first = signal;
    logger.info(`${signal}: draining`);
    try {
      await steps.drain();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), CLOSE_TIMEOUT_MS)));
      if ((await Promise.race([steps.close().then(() => 'closed'), late])) === 'late') logger.warn('connections did not close in time; exiting anyway');
      clearTimeout(timer);
    } catch (err) {
      logger.error({ err }, 'shutdown step failed; exiting anyway');
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void run('SIGTERM'));
  process.on('SIGINT', () => void run('SIGINT'));
}
