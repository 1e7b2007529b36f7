/*
 * A worker process (the report schedule scan, the relay and the delivery jobs) that the killed-worker
 * test SIGKILLs between the claim of a period and the end of its mail's send. Reads the run's
 * PostgreSQL and Redis, the queue prefix, the tenant, the SMTP sink and the app's clock from its
 * environment (test-only variables prefixed CHILD_).
 */
import 'reflect-metadata';
import pino from 'pino';
import { loadEnv } from '../../../src/platform/config/env';
import { buildContainer } from '../../../src/container';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { QUEUE_PREFIX } from '../../../src/platform/queue/job-definition';
import { RELAY_TIMING, DEFAULT_RELAY_TIMING } from '../../../src/messaging/outbox/relay-timing';
import { REMINDER_SCAN_OPTIONS, DEFAULT_REMINDER_SCAN_OPTIONS } from '../../../src/flows/reminders/reminder-scan';
import { REPORT_SCHEDULE_SCAN_OPTIONS } from '../../../src/flows/reports/report-schedule-scan';
import { CLOCK } from '../../../src/platform/time/tenant-clock';
import { startWorkers } from '../../../src/platform/queue/worker-runtime';

async function main(): Promise<void> {
  const tenant = Number(process.env.CHILD_TENANT_ID);
  const env = loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', SMTP_URL: process.env.CHILD_SMTP_URL, REPORT_SCHEDULE_SCAN_INTERVAL_SECONDS: '1' });
  const c = buildContainer(env, { databaseUrl: process.env.CHILD_DATABASE_URL!, redisUrl: process.env.CHILD_REDIS_URL! }, pino({ level: 'silent' }));
  c.register(QUEUE_PREFIX, { useValue: process.env.CHILD_QUEUE_PREFIX! });
  c.register(CLOCK, { useValue: { now: () => new Date(process.env.CHILD_NOW!) } });
  c.register(RELAY_TIMING, { useValue: { ...DEFAULT_RELAY_TIMING, pollMs: 100, onlyTenants: [tenant] } });
  c.register(REMINDER_SCAN_OPTIONS, { useValue: { ...DEFAULT_REMINDER_SCAN_OPTIONS, onlyTenants: [] } });
  c.register(REPORT_SCHEDULE_SCAN_OPTIONS, { useValue: { onlyTenants: [tenant] } });
  await c.resolve(TenantResolver).start();
  await startWorkers(c);
  process.stdout.write('started\n');
}

main().catch((err) => {
  process.stderr.write(`report worker child failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
