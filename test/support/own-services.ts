import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import knex from 'knex';
import { Redis } from 'ioredis';
import { freePort, startLocalPostgres, startLocalRedis, type LocalService } from '../../src/platform/dev/local-services';
import { migrateSchema } from '../../src/platform/migrations/migration-runner';
import { platformMigrations } from '../../migrations/platform';

const WORKERS_ENTRY = path.resolve(__dirname, '../../workers/main.ts');
const MAIN_ENTRY = path.resolve(__dirname, '../../src/main.ts');

export type OwnRedis = Awaited<ReturnType<typeof startLocalRedis>>;

/**
 * A PostgreSQL and Redis of a test file's own (the suite's are shared), so that the file can stop,
 * restart and flush them without touching other tests. PostgreSQL keeps its data over a restart
 * and comes back on the same port; the platform schema is migrated.
 */
export async function startOwnServices(options: { queueRedis?: boolean } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'own-services-'));
  fs.chmodSync(dir, 0o755);
  const pgPort = await freePort();
  const pgDir = path.join(dir, 'pg');
  const launchPostgres = () => startLocalPostgres({ dataDir: pgDir, port: pgPort, persistent: true, fsync: false });
  let pg: LocalService | null = await launchPostgres();
  const redis = await startLocalRedis({ dir: path.join(dir, 'redis') });
  const queues = options.queueRedis ? await startLocalRedis({ dir: path.join(dir, 'queue-redis') }) : null;
  const platformDb = knex({ client: 'pg', connection: pg.url });
  await migrateSchema(platformDb, 'platform', platformMigrations);
  await platformDb.destroy();
  const databaseUrl = pg.url;
  const stopPostgres = async () => {
    const p = pg;
    pg = null;
    await p?.stop();
  };
  const startPostgres = async () => {
    if (!pg) pg = await launchPostgres();
  };
  return {
    dir,
    databaseUrl,
    redis,
    queues,
    redisUrl: redis.url,
    queueRedisUrl: queues?.url,
    stopPostgres,
    startPostgres,
    async restartPostgres(downMs: number) {
      await stopPostgres();
      await new Promise((r) => setTimeout(r, downMs));
      await startPostgres();
    },
    /** FLUSHALL on the queue Redis, as a failover to an empty replica would. */
    async flushQueueRedis() {
      const r = new Redis((queues ?? redis).url);
      await r.flushall();
      r.disconnect();
    },
    async stop() {
      await queues?.stop();
      await redis.stop();
      await stopPostgres().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The worker process as `npm start` runs it (workers/main.ts), with the given environment. */
export function spawnWorkerProcess(vars: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', WORKERS_ENTRY], { env: { ...process.env, ...vars }, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The product as `npm start` runs it (src/main.ts: API, then its worker process). */
export function spawnMain(vars: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', MAIN_ENTRY], { env: { ...process.env, ...vars }, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Resolves with the exit code (or the signal's name) once the process has ended. */
export function exitOf(child: ChildProcess): Promise<number | string> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  if (child.signalCode !== null) return Promise.resolve(child.signalCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
}
