import path from 'node:path';
import { spawn } from 'node:child_process';
import type { Logger } from 'pino';
import { childNodeFlags } from './platform/processes/node-flags';

const WORKERS_ENTRY = path.resolve(__dirname, '../workers/main.ts');


/** Beyond the worker's own grace: time to close its connections before it is killed. */
const KILL_MARGIN_MS = 10_000;

/** Runs the workers in a child process of their own, restarted if it dies. */
export function startWorkerProcess(env: NodeJS.ProcessEnv, logger: Logger, graceMs: number): { stop(): Promise<void> } {
  let stopped = false;
  let child = launch();
  function launch() {
    const c = spawn(process.execPath, [...childNodeFlags(), '--import', 'tsx', WORKERS_ENTRY], { env, stdio: 'inherit' });
    c.on('exit', (code, signal) => {
      if (stopped) return;
      logger.error({ code, signal }, 'worker process exited; restarting in 2s');
      setTimeout(() => {
        if (!stopped) child = launch();
      }, 2000).unref();
    });
    return c;
  }
  return {
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
