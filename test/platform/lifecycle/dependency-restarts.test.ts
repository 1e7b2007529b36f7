import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import knex, { type Knex } from 'knex';
import { loadEnv } from '../../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../../src/container';
import { startServer, type RunningServer } from '../../../src/server';
import { importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS } from '../../support/login';
import { exitOf, spawnWorkerProcess, startOwnServices } from '../../support/own-services';
import { startSmtpSink, waitFor } from '../../messaging/messages/delivery-peers';
import { Traffic, call, type Answer } from './traffic';

/**
 * Issue 18, item 5: Redis (sessions and queues, one server) and PostgreSQL are really stopped and
 * started again while a small load of reads, writes and logins runs through the real HTTP server
 * and a real worker process delivers the messages. During the outage the API answers 200 or the
 * 503 envelope with Retry-After, nothing else; afterwards it recovers by itself, and everything it
 * acknowledged is there: each message row, its mail, each session.
 */
let services: Awaited<ReturnType<typeof startOwnServices>>;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let t: TestApp;
let server: RunningServer;
let worker: ChildProcess;
let acme: DemoTenant;
let base: string;
let cookie: string;
let db: Knex;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const OUTAGE_MS = 4000;

beforeAll(async () => {
  services = await startOwnServices();
  smtp = await startSmtpSink();
  const vars = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    SMTP_URL: smtp.url,
    OUTBOX_REDELIVER_AFTER_SECONDS: '3',
  };
  const env = loadEnv(vars);
  const container = buildContainer(
    env,
    { databaseUrl: services.databaseUrl, redisUrl: services.redisUrl },
    pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
  );
  server = await startServer(container, 0);
  base = `http://127.0.0.1:${server.port}`;
  t = { app: null as never, container, env, close: async () => {} };
  acme = await importDemoTenant(t, 'acme');
  const r = await call(base, 'POST', '/api/login', { Host: acme.host }, { user_name: 'admin', password: ACME_PASSWORDS.admin, login: 1 });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  cookie = ([] as string[])
    .concat(r.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('tg-visit='))!
    .split(';')[0];
  worker = spawnWorkerProcess(vars);
  // the worker is up once a first message has gone through it
  const first = await call(base, 'POST', '/api/messages', { Host: acme.host, Cookie: cookie }, { user_name: 'ola', title: 'worker up', text: 'x' });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  await waitFor('the worker process', () => smtp.mails.some((m) => m.headers.subject === 'worker up'), 60_000);
  const quiet = { warn() {}, error() {}, debug() {}, deprecate() {} };
  db = knex({ client: 'pg', connection: services.databaseUrl, pool: { min: 0, max: 2 }, log: quiet });
});

afterAll(async () => {
  worker?.kill('SIGKILL');
  if (worker) await exitOf(worker);
  await server?.close().catch(() => undefined);
  if (t) await closeContainer(t.container).catch(() => undefined);
  await db?.destroy();
  await smtp?.stop();
  await services?.stop();
});

const summary = (answers: Answer[]) => {
  const by = new Map<string, number>();
  for (const a of answers) by.set(`${a.kind} ${a.status}`, (by.get(`${a.kind} ${a.status}`) ?? 0) + 1);
  return [...by].map(([k, n]) => `${k}: ${n}`).join(', ');
};

/** Load, outage, load again until every kind of call has succeeded a few times; then the checks. */
async function underLoad(label: string, stop: () => Promise<void>, start: () => Promise<void>): Promise<void> {
  const traffic = new Traffic({ base, host: acme.host, cookie, login: { user_name: 'admin', password: ACME_PASSWORDS.admin }, recipient: 'ola' }, label);
  traffic.start();
  await sleep(1500);
  const downAt = Date.now();
  await stop();
  await sleep(OUTAGE_MS / 2);
  const readyDuring = await call(base, 'GET', '/readyz', {});
  await sleep(OUTAGE_MS / 2);
  await start();
  const backAt = Date.now();
  await waitFor('every kind of call to succeed again', () => Object.values(traffic.successesSince(backAt)).every((n) => n >= 3), 60_000).catch(() => undefined);
  await sleep(1000);
  await traffic.stop();
  const recovery = traffic.recoverySeconds(backAt);
  const during = traffic.answers.filter((a) => a.sentAt >= downAt && a.sentAt < backAt);
  console.log(
    `${label}: ${traffic.answers.length} calls; outage ${((backAt - downAt) / 1000).toFixed(1)} s (${summary(during)}); ` +
      `slowest answer meanwhile ${Math.max(...during.map((a) => a.doneAt - a.sentAt))} ms; recovered ${recovery.toFixed(2)} s after the restart; acknowledged ${traffic.messages.length} messages, ${traffic.sessions.length} logins`,
  );
  expect(
    traffic
      .unexpected()
      .map((a) => `${a.kind} ${a.status} ${a.body?.message ?? a.error} (retry-after ${a.retryAfter})`)
      .slice(0, 8),
  ).toEqual([]);
  expect(during.filter((a) => a.status === 503).length, 'the outage was seen').toBeGreaterThan(0);
  expect(readyDuring.status).toBe(503);
  expect(recovery).toBeLessThan(30);
  expect((await call(base, 'GET', '/readyz', {})).status).toBe(200);

  // Nothing acknowledged is lost: the message rows, their mails (through the worker), the sessions.
  const ids = traffic.messages.map((m) => m.id);
  const rows: { id: number; title: string }[] = await db.withSchema(acme.schema).table('messages').whereIn('id', ids).select('id', 'title');
  expect(rows.map((r) => `${r.id} ${r.title}`).sort()).toEqual(traffic.messages.map((m) => `${m.id} ${m.title}`).sort());
  const subjects = () => new Set(smtp.mails.map((m) => m.headers.subject));
  await waitFor(`mails of ${ids.length} messages`, () => traffic.messages.every((m) => subjects().has(m.title)), 90_000).catch(() => undefined);
  expect(traffic.messages.filter((m) => !subjects().has(m.title)).map((m) => m.title)).toEqual([]);
  for (const session of traffic.sessions) {
    const r = await call(base, 'GET', '/api/person', { Host: acme.host, Cookie: session });
    expect(r.status, `session acknowledged before or after the outage: ${JSON.stringify(r.body)}`).toBe(200);
  }
}

describe('dependencies restarted under load', { timeout: 180_000 }, () => {
  it('Redis (sessions and queues) stopped for 4 s: 503 with Retry-After meanwhile, then back by itself; nothing acknowledged lost', async () => {
    await underLoad(
      'redis restart',
      () => services.redis.kill(),
      () => services.redis.restart(),
    );
  });

  it('PostgreSQL stopped for 4 s: 503 with Retry-After meanwhile, then back by itself; nothing acknowledged lost', async () => {
    await underLoad(
      'postgres restart',
      () => services.stopPostgres(),
      () => services.startPostgres(),
    );
  });
});
