import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { loadEnv } from '../../../src/platform/config/env';
import { buildContainer, closeContainer } from '../../../src/container';
import { freePort } from '../../../src/platform/dev/local-services';
import { importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS } from '../../support/login';
import { startOwnServices } from '../../support/own-services';
import { startOtlpReceiver, type ReceivedSpan } from '../../support/otlp-receiver';
import { startSmtpSink, waitFor } from '../../messaging/messages/delivery-peers';
import { call } from '../lifecycle/traffic';
import { descendantsOf } from '../../bench/proc-stats';

/**
 * Issue 41, item 5: one POST /api/messages is one trace, from the API's request span through the
 * outbox (the delivery row's traceparent, migration 370), the relay and the worker's job down to
 * the SMTP send. The product runs as `npm start` runs it (src/main.ts and its worker process), so
 * tracing is started the way production starts it, before anything else loads; the spans of both
 * processes arrive at an OTLP/HTTP receiver on loopback.
 */
let services: Awaited<ReturnType<typeof startOwnServices>>;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let t: TestApp;
let acme: DemoTenant;
let main: ChildProcess | undefined;

beforeAll(async () => {
  services = await startOwnServices();
  smtp = await startSmtpSink();
  otlp = await startOtlpReceiver();
  const env = loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
  const container = buildContainer(env, { databaseUrl: services.databaseUrl, redisUrl: services.redisUrl }, pino({ level: 'silent' }));
  t = { app: null as never, container, env, close: () => closeContainer(container) };
  acme = await importDemoTenant(t, 'acme');
}, 120_000);

afterAll(async () => {
  // the worker process too: it outlives a SIGKILLed parent
  for (const pid of main?.pid ? [...descendantsOf(main.pid), main.pid] : []) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await t?.close().catch(() => undefined);
  await otlp?.close();
  await smtp?.stop();
  await services?.stop();
});

const isPostgres = (s: ReceivedSpan) => String(s.attributes['db.system'] ?? s.attributes['db.system.name'] ?? '').startsWith('postgres');
const isRedis = (s: ReceivedSpan) => (s.attributes['db.system'] ?? s.attributes['db.system.name']) === 'redis';

describe('traces', { timeout: 240_000 }, () => {
  it('one POST /api/messages is one trace: the request, its PostgreSQL and Redis calls, the worker job, the delivery and the SMTP send', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // npm start as spawnMain (test/support/own-services.ts) runs it, its log lines kept (the request log names the trace)
    const logLines: string[] = [];
    const vars = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: services.databaseUrl,
      REDIS_URL: services.redisUrl,
      SMTP_URL: smtp.url,
      DEMO_TENANTS: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    };
    main = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../../src/main.ts')], {
      env: { ...process.env, ...vars },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let partial = '';
    main.stdout!.on('data', (d: Buffer) => {
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop()!;
      logLines.push(...lines);
    });
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

    const title = `traced ${Date.now()}`;
    const sent = await call(base, 'POST', '/api/messages', { Host: acme.host, Cookie: cookie }, { user_name: 'ola', title, text: 'one trace' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const mail = await waitFor('the mail', () => smtp.mails.find((m) => m.headers.subject === title), 60_000);

    // the request's span: named by its route template, with the tenant and the status
    const request = await waitFor('the request span', () => otlp.spans.find((s) => s.name === 'POST /api/messages'), 30_000);
    expect(request.service).toBe('api');
    expect(request.parentSpanId).toBe('');
    expect(request.attributes).toMatchObject({
      'http.route': '/api/messages',
      'http.response.status_code': 200,
      'tenant.slug': acme.slug,
      'url.path': '/api/messages',
    });
    expect(typeof request.attributes['tenant.id']).toBe('number');
    // the request's log line names its trace
    const parsed = () =>
      logLines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { route?: string; req?: { method?: string }; trace_id?: string });
    const logged = await waitFor('the request log line', () => parsed().find((l) => l.route === '/api/messages' && l.req?.method === 'POST'), 10_000);
    expect(logged.trace_id).toBe(request.traceId);

    // ... and the rest of its trace, from both processes
    const trace = () => otlp.spans.filter((s) => s.traceId === request.traceId);
    const smtpSpan = await waitFor('the SMTP send span in the same trace', () => trace().find((s) => s.name === 'smtp send'), 30_000);
    const spans = trace();
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const deliver = byId.get(smtpSpan.parentSpanId)!;
    expect(deliver?.name).toBe('deliver email');
    const job = byId.get(deliver.parentSpanId)!;
    expect(job?.name).toBe('job messages.deliver-batch');
    expect(job.parentSpanId).toBe(request.spanId);
    expect(job.attributes).toMatchObject({
      'messaging.system': 'bullmq',
      'messaging.destination.name': 'messages',
      'tenant.id': request.attributes['tenant.id'],
    });
    expect(new Set([job.service, deliver.service, smtpSpan.service])).toEqual(new Set(['workers']));
    expect(smtpSpan.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'smtp.message_id': mail.headers['message-id'] });
    expect(deliver.attributes).toMatchObject({ 'delivery.medium': 'email', 'delivery.outcome': 'sent' });

    // PostgreSQL calls of the API (the insert) and of the worker (the claim), in the one trace
    const pg = spans.filter(isPostgres);
    expect(pg.some((s) => s.service === 'api' && /insert into/i.test(String(s.attributes['db.statement'] ?? s.attributes['db.query.text'])))).toBe(true);
    expect(pg.some((s) => s.service === 'workers' && s.parentSpanId === job.spanId)).toBe(true);
    // Redis calls of the request (session, rate limit), by command name only
    const redis = spans.filter((s) => isRedis(s) && s.service === 'api');
    expect(redis.length).toBeGreaterThan(0);
    for (const s of redis) expect(String(s.attributes['db.statement'] ?? s.attributes['db.query.text'] ?? '')).not.toContain(' ');
    // nothing of the message's text or addresses in any span
    expect(JSON.stringify(spans)).not.toContain('one trace');
    expect(JSON.stringify(spans)).not.toContain(mail.rcptTo[0]);
    console.log(`one trace of ${spans.length} spans: ${[...new Set(spans.map((s) => `${s.service}:${s.name}`))].join(', ')}`);

    // Several requests whose deliveries the relay may put in one batch job: each message's trace
    // still ends in its own send (a delivery of another trace than the job's is a child of its
    // request, linked to the job).
    const titles = [1, 2, 3].map((n) => `traced together ${n} ${Date.now()}`);
    const answers = await Promise.all(
      titles.map((title) => call(base, 'POST', '/api/messages', { Host: acme.host, Cookie: cookie }, { user_name: 'ola', title, text: 'x' })),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    await waitFor('the mails', () => titles.every((title) => smtp.mails.some((m) => m.headers.subject === title)), 60_000);
    for (const a of answers) {
      const messageId = a.body.messages[0].message_id;
      const d = await waitFor(
        `the delivery span of message ${messageId}`,
        () => otlp.spans.find((s) => s.name === 'deliver email' && s.attributes['message.id'] === messageId),
        30_000,
      );
      const own = otlp.spans.filter((s) => s.traceId === d.traceId);
      expect(own.filter((s) => s.name === 'POST /api/messages' && s.service === 'api')).toHaveLength(1);
      await waitFor(
        `the SMTP send of message ${messageId}`,
        () => otlp.spans.some((s) => s.traceId === d.traceId && s.name === 'smtp send' && s.parentSpanId === d.spanId),
        30_000,
      );
      const parent = own.find((s) => s.spanId === d.parentSpanId)!;
      if (parent.name !== 'job messages.deliver-batch') {
        expect(parent.name).toBe('POST /api/messages');
        expect(d.links).toHaveLength(1);
        expect(otlp.spans.find((s) => s.spanId === d.links[0].spanId)?.name).toBe('job messages.deliver-batch');
      }
    }
    expect(otlp.requests.rejected).toBe(0);
  });

  it('off without OTEL_EXPORTER_OTLP_ENDPOINT: no SDK and no instrumentation is loaded, only the API package', () => {
    const loaded = (env: Record<string, string>) => {
      const script = `require('./src/platform/tracing/init-api'); require('pg'); require('ioredis');
        console.log(JSON.stringify([...new Set(Object.keys(require.cache).filter((k) => k.includes('@opentelemetry')).map((k) => k.split('node_modules/')[1].split('/').slice(0, 2).join('/')))]))`;
      const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
        cwd: path.resolve(__dirname, '../../..'),
        env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', ...env },
      });
      return JSON.parse(out.toString().trim()) as string[];
    };
    expect(loaded({})).toEqual(['@opentelemetry/api']);
    expect(loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toEqual(
      expect.arrayContaining([
        '@opentelemetry/sdk-trace-node',
        '@opentelemetry/instrumentation-pg',
        '@opentelemetry/instrumentation-ioredis',
        '@opentelemetry/instrumentation-http',
      ]),
    );
  });
});
