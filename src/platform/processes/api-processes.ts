import path from 'node:path';
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { childNodeFlags } from './node-flags';
import { serveClusterMetrics } from '../metrics/cluster-metrics';

/** The API alone (src/api.ts): what every API process runs. */
const API_ENTRY = path.resolve(__dirname, '../../api.ts');

/** A process that dies this soon after its start is crash-looping: wait longer before the next. */
const CRASH_LOOP_MS = 10_000;
const FIRST_RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;
/** SIGTERM lets a process finish its requests (the API cuts connections after 10 s); then SIGKILL. */
const STOP_GRACE_MS = 20_000;

/** What an API process sends its primary once the API listens (after its warm-ups). */
export const API_LISTENING_MESSAGE = { type: 'api-listening' } as const;

/** Tells the primary of WEB_CONCURRENCY API processes that this one's API listens; nothing outside a cluster. */
export function announceApiListening(): void {
  if (cluster.isWorker) process.send?.(API_LISTENING_MESSAGE);
}

export interface ApiProcesses {
  /** Process ids of the API processes running now. */
  pids(): number[];
  /** SIGTERM to every API process; resolves once all have exited. */
  stop(): Promise<void>;
}

/**
 * Runs `count` API processes (node:cluster) that share one listening port: the primary accepts
 * the connections and hands them round-robin to the processes. A process that dies is replaced
 * (after 1 s, longer while it keeps dying at once). Caches stay in step as they do between API
 * processes on different hosts: tenant changes through Redis pub/sub, principal changes through
 * PostgreSQL NOTIFY. Resolves once every process listens.
 */
export async function startApiProcesses(options: { count: number; env: NodeJS.ProcessEnv; logger: Logger }): Promise<ApiProcesses> {
  const { count, env, logger } = options;
  cluster.setupPrimary({ exec: API_ENTRY, execArgv: [...childNodeFlags(), '--import', 'tsx'] });
  serveClusterMetrics();
  let stopping = false;
  const running = new Set<Worker>();
  let restartDelay = FIRST_RESTART_DELAY_MS;

  const fork = (): Promise<void> => {
    const started = Date.now();
    const worker = cluster.fork(env);
    running.add(worker);
    worker.on('exit', (code, signal) => {
      running.delete(worker);
      if (stopping) return;
      restartDelay = Date.now() - started < CRASH_LOOP_MS ? Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS) : FIRST_RESTART_DELAY_MS;
      logger.error({ apiPid: worker.process.pid, code, signal, restartInMs: restartDelay }, 'API process exited; starting another');
      setTimeout(() => {
        if (!stopping) void fork();
      }, restartDelay).unref();
    });
    return new Promise<void>((resolve) => {
      // Not cluster's 'listening': a process listens on other ports before the API's (the request-path
      // warm-up's loopback server), so it says itself when the API listens.
      const listening = (message: unknown) => {
        if ((message as { type?: unknown } | null)?.type !== API_LISTENING_MESSAGE.type) return;
        worker.off('message', listening);
        logger.info({ apiPid: worker.process.pid }, 'API process started');
        resolve();
      };
      worker.on('message', listening);
      // a process that dies before it listens is replaced by the exit handler; do not wait for it
      worker.once('exit', () => resolve());
    });
  };

  await Promise.all(Array.from({ length: count }, fork));
  return {
    pids: () => [...running].map((w) => w.process.pid).filter((p): p is number => p !== undefined),
    async stop() {
      stopping = true;
      await Promise.all(
        [...running].map(
          (worker) =>
            new Promise<void>((resolve) => {
              if (worker.isDead()) return resolve();
              const kill = setTimeout(() => worker.process.kill('SIGKILL'), STOP_GRACE_MS);
              worker.once('exit', () => {
                clearTimeout(kill);
                resolve();
              });
              worker.process.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
