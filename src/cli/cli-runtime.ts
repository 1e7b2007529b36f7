import 'reflect-metadata';
import pino from 'pino';
import type { DependencyContainer } from 'tsyringe';
import { EnvError, loadEnv } from '../platform/config/env';
import { REDACT_PATHS } from '../platform/logging/logger';
import { buildContainer, closeContainer } from '../container';
import { ApiError } from '../platform/errors/api-error';

/** Where `npm start` runs its own PostgreSQL and Redis (see src/main.ts). */
export const LOCAL_SERVICES_HINT = `Needs DATABASE_URL and REDIS_URL (or REDIS_CLUSTER_NODES). For the services that \`npm start\` runs locally:
  DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/competence REDIS_URL=redis://127.0.0.1:63799`;

export class CliError extends Error {}

/** Progress goes to stderr so that stdout stays clean for results (an export, --json). */
export const progress = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Builds the same container as the API for one CLI command and closes it afterwards.
 * Known failures (bad input, unknown tenant, missing configuration) end with a one-line
 * message and exit code 1, never a stack trace.
 */
export async function runWithContainer(fn: (c: DependencyContainer) => Promise<void>): Promise<void> {
  let container: DependencyContainer | undefined;
  try {
    const env = loadEnv();
    const hasRedis = !!(env.REDIS_URL || env.REDIS_CLUSTER_NODES);
    if (!env.DATABASE_URL || !hasRedis) {
      const missing = [!env.DATABASE_URL && 'DATABASE_URL', !hasRedis && 'REDIS_URL'].filter(Boolean).join(' and ');
      throw new CliError(`${missing} not set.\n${LOCAL_SERVICES_HINT}`);
    }
    const logger = pino({ level: env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL, redact: REDACT_PATHS }, pino.destination(2));
    container = buildContainer(env, { databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL }, logger);
    await fn(container);
  } catch (err) {
    if (err instanceof CliError || err instanceof EnvError || err instanceof ApiError) {
      process.stderr.write(`error: ${err.message}\n`);
    } else {
      process.stderr.write(`error: ${(err as Error).stack ?? String(err)}\n`);
    }
    process.exitCode = 1;
  } finally {
    if (container) await closeContainer(container).catch(() => {});
  }
}
