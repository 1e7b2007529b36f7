import type { ChildProcess } from 'node:child_process';
import pino from 'pino';
import { loadEnv } from '../../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../../src/container';
import { buildApp } from '../../../src/app';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { importDemoTenant, client, type TestApp, type DemoTenant } from '../../support/test-app';
import { loginCookie, ACME_PASSWORDS, GLOBEX_PASSWORDS } from '../../support/login';
import { startSmtpSink, waitFor } from './delivery-peers';
import { spawnWorkerProcess, startOwnServices } from '../../support/own-services';

export interface ChaosFigures {
  messages: number;
  lost: number;
  duplicates: number;
  duplicatesWithSameMessageId: number;
  drainSeconds: number;
}

export interface ChaosPlan {
  messages: number;
  smtpOutageMs: number;
  /** What to break, in order, spread over the sending. */
  faults: ('smtp' | 'kill-worker' | 'flush-queue-redis' | 'restart-postgres')[];
  drainTimeoutMs: number;
  log?: (m: string) => void;
}

/**
 * A whole deployment of our own (PostgreSQL, sessions Redis, queue Redis, SMTP sink, the API in
 * this process and a real worker child process), so that killing and flushing touches no other
 * test. Three tenants send through the API while the plan's faults happen; then every message
 * must arrive.
 */
export async function runChaos(plan: ChaosPlan): Promise<ChaosFigures> {
  const log = plan.log ?? (() => {});
  const services = await startOwnServices({ queueRedis: true });
  const smtp = await startSmtpSink();
  const vars = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    QUEUE_REDIS_URL: services.queueRedisUrl!,
    SMTP_URL: smtp.url,
    OUTBOX_REDELIVER_AFTER_SECONDS: '3',
  };
  const env = loadEnv(vars);
  const container = buildContainer(env, { databaseUrl: services.databaseUrl, redisUrl: services.redisUrl }, pino({ level: 'silent' }));
  await container.resolve(TenantResolver).start();
  const t: TestApp = {
    app: buildApp(container),
    container,
    env,
    close: async () => {
      await container.resolve(TenantResolver).stop();
      await closeContainer(container);
    },
  };
  let worker: ChildProcess | null = null;
  const startWorker = () => {
    worker = spawnWorkerProcess(vars);
  };
  const killWorker = async () => {
    const w = worker!;
    const exited = new Promise((r) => w.once('exit', r));
    w.kill('SIGKILL');
    await exited;
    startWorker();
  };
  try {
    const tenants: { tenant: DemoTenant; cookie: string }[] = [];
    for (const [which, password] of [
      ['acme', ACME_PASSWORDS.admin],
      ['globex', GLOBEX_PASSWORDS.admin],
      ['acme', ACME_PASSWORDS.admin],
    ] as const) {
      const tenant = await importDemoTenant(t, which);
      tenants.push({ tenant, cookie: await loginCookie(t, tenant.host, 'admin', password) });
    }
    startWorker();
    const titles = Array.from({ length: plan.messages }, (_, n) => `chaos ${n}`);
    const arrived = () => new Set(smtp.mails.map((m) => m.headers.subject).filter((s) => titles.includes(s)));
    const started = Date.now();
    // Everything goes into the outbox first, so each fault hits a queue that is still draining.
    for (let i = 0; i < titles.length; i += 20) {
      await Promise.all(
        titles.slice(i, i + 20).map(async (title, k) => {
          const { tenant, cookie } = tenants[(i + k) % tenants.length];
          const res = await client(t, tenant.host, cookie).post('/api/messages').send({ user_name: 'admin', title, text: 'x' });
          if (res.status !== 200) throw new Error(`POST ${title}: ${res.status} ${JSON.stringify(res.body)}`);
        }),
      );
    }
    log(`posted ${titles.length} messages in ${((Date.now() - started) / 1000).toFixed(1)} s; ${arrived().size} arrived so far`);
    // spread the faults over what is still undelivered (delivery may outrun the posting)
    const base = arrived().size;
    for (const [i, fault] of plan.faults.entries()) {
      const at = base + Math.floor(((i + 1) * (plan.messages - base)) / (plan.faults.length + 1));
      await waitFor(`${at} arrivals before ${fault}`, () => arrived().size >= at, plan.drainTimeoutMs);
      log(`fault after ${arrived().size} arrivals: ${fault}`);
      if (fault === 'smtp') {
        await smtp.stop();
        await new Promise((r) => setTimeout(r, plan.smtpOutageMs));
        await smtp.start();
      } else if (fault === 'kill-worker') await killWorker();
      else if (fault === 'flush-queue-redis') await services.flushQueueRedis();
      else if (fault === 'restart-postgres') await services.restartPostgres(2000);
    }
    await waitFor('every message', () => arrived().size === titles.length, plan.drainTimeoutMs).catch(() => undefined);
    const drainSeconds = (Date.now() - started) / 1000;
    log(`${smtp.mails.length} mails received`);
    const bySubject = new Map<string, string[]>();
    for (const m of smtp.mails)
      if (titles.includes(m.headers.subject)) bySubject.set(m.headers.subject, [...(bySubject.get(m.headers.subject) ?? []), m.headers['message-id']]);
    const copies = [...bySubject.values()];
    return {
      messages: titles.length,
      lost: titles.length - bySubject.size,
      duplicates: copies.reduce((n, ids) => n + ids.length - 1, 0),
      duplicatesWithSameMessageId: copies.reduce((n, ids) => n + ids.slice(1).filter((id) => id === ids[0]).length, 0),
      drainSeconds,
    };
  } finally {
    (worker as ChildProcess | null)?.kill('SIGKILL');
    await t.close().catch(() => undefined);
    await smtp.stop();
    await services.stop();
  }
}
