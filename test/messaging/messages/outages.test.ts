import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import pino from 'pino';
import { Redis } from 'ioredis';
import { QUEUE_REDIS } from '../../../src/platform/queue/job-definition';
import { buildContainer, closeContainer } from '../../../src/container';
import { buildApp } from '../../../src/app';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { startLocalRedis } from '../../../src/platform/dev/local-services';
import { testEnv, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { startSmtpSink, startTwilioSink, startTestWorkers, TWILIO_ENV, waitFor } from './delivery-peers';

let t: TestApp;
let acme: DemoTenant;
let redis: Awaited<ReturnType<typeof startLocalRedis>>;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let twilio: Awaited<ReturnType<typeof startTwilioSink>>;
let queueRedis: Redis;
let workers: Awaited<ReturnType<typeof startTestWorkers>>;
const redisDir = fs.mkdtempSync(path.join(os.tmpdir(), 'messages-redis-'));

beforeAll(async () => {
  // A Redis of our own, so this file can stop and start it without touching other tests.
  redis = await startLocalRedis({ dir: redisDir });
  smtp = await startSmtpSink();
  twilio = await startTwilioSink();
  const env = testEnv({ SMTP_URL: smtp.url, TWILIO_BASE_URL: twilio.url, ...TWILIO_ENV });
  const container = buildContainer(env, { databaseUrl: inject('databaseUrl'), redisUrl: inject('redisUrl') }, pino({ level: 'silent' }));
  // Sessions stay on the suite's Redis; the queues and the outbox signal use ours.
  queueRedis = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: (n) => Math.min(n * 100, 500) });
  queueRedis.on('error', () => {});
  container.register(QUEUE_REDIS, { useValue: queueRedis });
  await container.resolve(TenantResolver).start();
  t = {
    app: buildApp(container),
    container,
    env,
    close: async () => {
      await container.resolve(TenantResolver).stop();
      await closeContainer(container);
    },
  };
  acme = await importDemoTenant(t, 'acme');
  workers = await startTestWorkers(t.container, [acme.tenantId]);
});

afterAll(async () => {
  await workers?.stop();
  await t?.close();
  queueRedis?.disconnect();
  await smtp?.stop();
  await twilio?.stop();
  await redis?.kill();
  fs.rmSync(redisDir, { recursive: true, force: true });
});

describe('deliveries survive outages', () => {
  it('with Redis down, POST /api/messages still answers 200; once Redis is back each message is delivered exactly once', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    await redis.kill();
    const ids: number[] = [];
    try {
      for (const n of [1, 2, 3]) {
        const res = await admin.post('/api/messages').send({ user_name: 'ola', title: `During outage ${n}`, text: `Message ${n}.`, send_medium: 'both' });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        ids.push(res.body.messages[0].message_id);
      }
    } finally {
      await redis.restart();
    }
    for (const n of [1, 2, 3]) {
      await waitFor(`mail ${n}`, () => smtp.mails.some((m) => m.headers.subject === `During outage ${n}`));
      await waitFor(`sms ${n}`, () => twilio.received.some((s) => s.form.Body?.includes(`Message ${n}.`)));
    }
    const session = await asAcme(t, acme.host, 'admin');
    for (const id of ids) {
      const m = await waitFor('sent state', async () => {
        const r = (await session.get(`/api/messages/${id}`)).body.messages[0];
        return r.deliveries.every((d: any) => d.state === 'sent') ? r : null;
      });
      expect(m.deliveries.map((d: any) => d.attempts)).toEqual([1, 1]);
    }
    for (const n of [1, 2, 3]) {
      expect(smtp.mails.filter((m) => m.headers.subject === `During outage ${n}`)).toHaveLength(1);
      expect(twilio.received.filter((s) => s.form.Body?.includes(`Message ${n}.`))).toHaveLength(1);
    }
  });

  it('with the SMTP server down, the mail is retried and delivered once it is back; the attempts are visible', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    await smtp.stop();
    const res = await admin.post('/api/messages').send({ user_name: 'nils', title: 'SMTP outage', text: 'Arrives later.' });
    const id = res.body.messages[0].message_id;
    const retried = await waitFor('a failed attempt', async () => {
      const d = (await admin.get(`/api/messages/${id}`)).body.messages[0].deliveries[0];
      return d.attempts >= 2 ? d : null;
    });
    expect(retried.state).toBe('queued');
    expect(retried.reason).toMatch(/SMTP/);
    await smtp.start();
    const sent = await waitFor('sent after SMTP came back', async () => {
      const d = (await admin.get(`/api/messages/${id}`)).body.messages[0].deliveries[0];
      return d.state === 'sent' ? d : null;
    });
    expect(sent.reason).toBeNull();
    expect(smtp.mails.filter((m) => m.headers.subject === 'SMTP outage')).toHaveLength(1);
  });
});
