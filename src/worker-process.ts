import path from 'node:path';
import { spawn } from 'node:child_process';
import type { Logger } from 'pino';
import { childNodeFlags } from './platform/processes/node-flags';

const WORKERS_ENTRY = path.resolve(__dirname, '../workers/main.ts');

/** Beyond the worker's own grace: time to close its connections before it is killed. */
const KILL_MARGIN_MS = 10_000;

/** The longest npm start waits for the worker process to boot before the API starts anyway. */
const READY_WAIT_MS = 60_000;

/** What workers/main.ts sends its parent once every worker runs. */
export const WORKERS_READY = 'workers-ready';

/**
 * Runs the workers in a child process of their own, restarted if it dies. `ready` settles when the
 * first one has booted (it says so over IPC), has exited, or READY_WAIT_MS passed.
 */
export function startWorkerProcess(env: NodeJS.ProcessEnv, logger: Logger, graceMs: number): { ready: Promise<void>; stop(): Promise<void> } {
  let stopped = false;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const readyWait = setTimeout(() => {
    logger.warn(`worker process not ready after ${READY_WAIT_MS / 1000} s; starting the API anyway`);
    markReady();
  }, READY_WAIT_MS);
  readyWait.unref();
  void ready.then(() => clearTimeout(readyWait));
  let child = launch();
  function launch() {
    const c = spawn(process.execPath, [...childNodeFlags(), '--import', 'tsx', WORKERS_ENTRY], { env, stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
    c.on('message', (m) => {
      if (m === WORKERS_READY) markReady();
    });
    c.on('exit', (code, signal) => {
      markReady();
      if (stopped) return;
      logger.error({ code, signal }, 'worker process exited; restarting in 2s');
      setTimeout(() => {
        if (!stopped) child = launch();
      }, 2000).unref();
    });
    return c;
  }
  return {
    ready,
    /** SIGTERM (the worker lets running jobs finish within graceMs), SIGKILL if it has not exited soon after. */
    stop: () =>
      new Promise<void>((resolve) => {
        stopped = true;
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => {
          logger.warn('worker process did not exit in time; killing it');
          child.kill('SIGKILL');
        }, graceMs + KILL_MARGIN_MS);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
