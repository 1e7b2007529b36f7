/*
 * A worker process that runs one reminder scan and exits; the killed-worker test SIGKILLs it
 * mid-scan. Reads the run's PostgreSQL and Redis, the queue prefix, the tenant and the lock
 * timeout from its environment (test-only variables prefixed CHILD_).
 */
import 'reflect-metadata';
import pino from 'pino';
import { loadEnv } from '../../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../../src/container';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { QUEUE_PREFIX } from '../../../src/platform/queue/job-definition';
import { ReminderScan, REMINDER_SCAN_OPTIONS } from '../../../src/flows/reminders/reminder-scan';

async function main(): Promise<void> {
  const env = loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
  const c = buildContainer(env, { databaseUrl: process.env.CHILD_DATABASE_URL!, redisUrl: process.env.CHILD_REDIS_URL! }, pino({ level: 'silent' }));
  c.register(QUEUE_PREFIX, { useValue: process.env.CHILD_QUEUE_PREFIX! });
  c.register(REMINDER_SCAN_OPTIONS, { useValue: { lockTimeoutMs: Number(process.env.CHILD_LOCK_MS), onlyTenants: [Number(process.env.CHILD_TENANT_ID)] } });
  await c.resolve(TenantResolver).start();
  const result = await c.resolve(ReminderScan).run();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await c.resolve(TenantResolver).stop();
  await closeContainer(c);
}

main().catch((err) => {
  process.stderr.write(`scan child failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
