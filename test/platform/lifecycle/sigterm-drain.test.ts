import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import knex, { type Knex } from 'knex';
import { loadEnv } from '../../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../../src/container';
import { freePort } from '../../../src/platform/dev/local-services';
import { importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS } from '../../support/login';
import { exitOf, spawnMain, startOwnServices } from '../../support/own-services';
import { startSmtpSink, waitFor } from '../../messaging/messages/delivery-peers';
import { descendantsOf } from '../../bench/proc-stats';
import { call } from './traffic';
import { rawConnection } from './raw-http';

/**
 * Issue 18, item 5: SIGTERM drains. The product runs as `npm start` runs it (src/main.ts, which
 * starts the worker process); the test holds an HTTP request half-sent and a mail half-accepted
 * across the SIGTERM and checks what happens to each, and to requests that come after it.
 */
let services: Awaited<ReturnType<typeof startOwnServices>>;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let t: TestApp;
let acme: DemoTenant;
let db: Knex;
const children: ChildProcess[] = [];

beforeAll(async () => {
  services = await startOwnServices();
  smtp = await startSmtpSink();
  const env = loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
  const container = buildContainer(env, { databaseUrl: services.databaseUrl, redisUrl: services.redisUrl }, pino({ level: 'silent' }));
  t = { app: null as never, container, env, close: () => closeContainer(container) };
  acme = await importDemoTenant(t, 'acme');
  db = knex({ client: 'pg', connection: services.databaseUrl, pool: { min: 0, max: 2 } });
});

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await t?.close().catch(() => undefined);
  await db?.destroy();
  await smtp?.stop();
  await services?.stop();
});

/** src/main.ts on a port of its own; resolves once /readyz answers 200, with the admin's cookie. */
async function startProduct(extra: Record<string, string>) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const main = spawnMain({
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    SMTP_URL: smtp.url,
    DEMO_TENANTS: '0',
    OUTBOX_REDELIVER_AFTER_SECONDS: '3',
    ...extra,
  });
  children.push(main);
  await waitFor(
    'the API',
    () =>
      call(base, 'GET', '/readyz', {}).then(
        (r) => r.status === 200,
        () => false,
      ),
    120_000,
  );
  const login = await call(base, 'POST', '/api/login', { Host: acme.host }, { user_name: 'admin', password: ACME_PASSWORDS.admin, login: 1 });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  const cookie = ([] as string[])
    .concat(login.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('tg-visit='))!
    .split(';')[0];
  return { main, port, base, cookie };
}

/** Posts a message and waits until the worker is in the middle of sending its mail (the sink holds DATA). */
async function mailInFlight(base: string, cookie: string, title: string): Promise<number> {
  const r = await call(base, 'POST', '/api/messages', { Host: acme.host, Cookie: cookie }, { user_name: 'ola', title, text: 'x' });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  await waitFor(`the worker sending "${title}"`, () => smtp.pace.receiving > 0, 60_000);
  return r.body.messages[0].message_id;
}

/** A POST /api/messages whose body is only half sent yet: the server is in the middle of it. */
async function halfSentPost(port: number, cookie: string, title: string) {
  const body = JSON.stringify({ user_name: 'ola', title, text: 'sent across the SIGTERM' });
  const c = await rawConnection(port);
  c.write(
    `POST /api/messages HTTP/1.1\r\nHost: ${acme.host}\r\nCookie: ${cookie}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
  );
  return { ...c, finish: () => c.write(body.slice(10)) };
}

const delivery = (messageId: number) =>
  db.withSchema(acme.schema).table('message_deliveries').where({ message_id: messageId, medium: 'email' }).first('state', 'attempts');

describe('SIGTERM drains the API and the worker process', { timeout: 240_000 }, () => {
  it('the running request and the running job finish, new requests are refused, the process exits 0', async () => {
    const { main, port, base, cookie } = await startProduct({ SHUTDOWN_GRACE_MS: '30000' });
    const workerPids = descendantsOf(main.pid!);
    smtp.pace.delayMs = 3000;
    const jobMessage = await mailInFlight(base, cookie, 'job across the SIGTERM');
    const running = await halfSentPost(port, cookie, 'request across the SIGTERM');
    const late = await rawConnection(port);
    late.write(`GET /api/person HTTP/1.1\r\nHost: ${acme.host}\r\n`); // headers not finished yet
    const idle = await rawConnection(port);
    idle.write(`GET /healthz HTTP/1.1\r\nHost: ${acme.host}\r\n\r\n`);
    expect((await idle.response())?.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300)); // the server has read the running request's headers

    const sentAt = Date.now();
    main.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    // a new connection is refused; an idle keep-alive connection is closed
    await expect(call(base, 'GET', '/healthz', {})).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await idle.closed;
    // a request that arrives on a connection that was already open: the 503 envelope
    late.write(`Cookie: ${cookie}\r\n\r\n`);
    const refused = await late.response();
    expect(refused?.status).toBe(503);
    expect(refused?.body).toMatchObject({ valid: false, errorcode: 503 });
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused?.headers.connection).toBe('close');
    // the running request finishes and is answered (and its connection then closed)
    running.finish();
    const answered = await running.response();
    expect(answered?.status, JSON.stringify(answered?.body)).toBe(200);
    expect(answered?.headers.connection).toBe('close');

    expect(await exitOf(main)).toBe(0);
    console.log(`SIGTERM to exit: ${((Date.now() - sentAt) / 1000).toFixed(1)} s (SMTP answer held 3 s)`);
    // the job that was running finished: the mail was accepted once, its row is sent
    expect(smtp.mails.filter((m) => m.headers.subject === 'job across the SIGTERM')).toHaveLength(1);
    expect(await delivery(jobMessage)).toEqual({ state: 'sent', attempts: 1 });
    // what was acknowledged is stored; the worker process is gone too
    expect(await delivery(answered!.body.messages[0].message_id)).toMatchObject({ state: 'queued' });
    expect(workerPids.length).toBeGreaterThan(0);
    expect(workerPids.filter((pid) => descendantsOf(process.pid).includes(pid))).toEqual([]);
  });

  it('the grace bounds the drain: a request and a job still running then are cut off, the process exits 0, the job is sent later', async () => {
    const { main, port, base, cookie } = await startProduct({ SHUTDOWN_GRACE_MS: '1500' });
    smtp.pace.delayMs = 60_000;
    const jobMessage = await mailInFlight(base, cookie, 'job past the grace');
    const stuck = await halfSentPost(port, cookie, 'request past the grace');
    await new Promise((r) => setTimeout(r, 300));
    const sentAt = Date.now();
    main.kill('SIGTERM');
    expect(await exitOf(main)).toBe(0);
    console.log(`SIGTERM to exit with SHUTDOWN_GRACE_MS=1500 and both cut off: ${((Date.now() - sentAt) / 1000).toFixed(1)} s`);
    expect(await stuck.response()).toBeNull(); // closed without an answer: never acknowledged
    expect(await delivery(jobMessage)).toMatchObject({ state: 'sending' });

    // The next start sends the cut-off mail again (at least once).
    smtp.pace.delayMs = 0;
    const next = await startProduct({});
    await waitFor('the cut-off mail sent again', async () => (await delivery(jobMessage))?.state === 'sent', 90_000);
    const copies = smtp.mails.filter((m) => m.headers.subject === 'job past the grace');
    expect(copies).toHaveLength(1); // the held first attempt was never accepted
    next.main.kill('SIGTERM');
    expect(await exitOf(next.main)).toBe(0);
  });
});
