import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { ACME_PASSWORDS, GLOBEX_PASSWORDS, loginCookie } from '../support/login';
import { startSmtpSink, startTestWorkers, waitFor } from '../messaging/messages/delivery-peers';
import { startLocalRedisCluster } from '../../src/platform/dev/local-services';
import { REDIS } from '../../src/platform/tokens';
import { QUEUE_PREFIX, QUEUE_REDIS } from '../../src/platform/queue/job-definition';
import { isRedisCluster, scanKeys, type RedisClient } from '../../src/platform/redis/redis-client';
import { RedisKeysPurger } from '../../src/platform/tenant-scope/tenant-purgers';

/**
 * The product on a 3-master Redis Cluster (sessions, rate limits, sign-on hashes, idempotency keys,
 * tenant-change pub/sub, the outbox signal and the BullMQ queues), with two app containers standing
 * for two API processes, and the workers in this process.
 */
let dir: string;
let cluster: Awaited<ReturnType<typeof startLocalRedisCluster>>;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let a: TestApp;
let b: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let workers: Awaited<ReturnType<typeof startTestWorkers>>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-cluster-test-'));
  [cluster, smtp] = await Promise.all([startLocalRedisCluster({ dir }), startSmtpSink()]);
  // TTL far beyond the test: only the pub/sub message can make a process see a change.
  const env = { REDIS_CLUSTER_NODES: cluster.nodes, QUEUE_REDIS_CLUSTER_NODES: cluster.nodes, SMTP_URL: smtp.url, TENANT_CACHE_SECONDS: '3600' };
  [a, b] = await Promise.all([createTestApp(env), createTestApp(env)]);
  [acme, globex] = await Promise.all([importDemoTenant(a, 'acme'), importDemoTenant(a, 'globex')]);
  workers = await startTestWorkers(a.container, [acme.tenantId, globex.tenantId]);
  // b stands for an API process of the same deployment: the same queues (startTestWorkers gave a its own)
  b.container.register(QUEUE_PREFIX, { useValue: a.container.resolve(QUEUE_PREFIX) });
});

afterAll(async () => {
  await workers?.stop();
  await Promise.all([a?.close(), b?.close()]);
  await smtp?.stop();
  await cluster?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const redis = (): RedisClient => a.container.resolve(REDIS);

async function keysMatching(match: string): Promise<string[]> {
  const all: string[] = [];
  for await (const { keys } of scanKeys(redis(), match)) all.push(...keys);
  return all;
}

async function slotOf(key: string): Promise<number> {
  return Number(await redis().call('CLUSTER', 'KEYSLOT', key));
}

describe('on a 3-master Redis Cluster', () => {
  it('both containers talk to the cluster through the Cluster client, and its keys spread over every master', async () => {
    expect(isRedisCluster(redis())).toBe(true);
    expect(isRedisCluster(b.container.resolve(QUEUE_REDIS))).toBe(true);
    const masters = (redis() as import('ioredis').Cluster).nodes('master');
    expect(masters).toHaveLength(3);
  });

  it('a session made by one process works on the other; its key and the person index share the tenant hash tag', async () => {
    const cookie = await loginCookie(a, acme.host, 'ola', ACME_PASSWORDS.ola);
    expect((await client(b, acme.host, cookie).get('/api/configitems/cors.origins')).status).toBe(200);
    const sessionId = cookie.split('=')[1];
    const [sessionKey] = await keysMatching(`*session:${sessionId}`);
    expect(sessionKey).toBe(`{t${acme.tenantId}}:session:${sessionId}`);
    const [indexKey] = await keysMatching(`{t${acme.tenantId}}:person-sessions:*`);
    expect(await slotOf(indexKey)).toBe(await slotOf(sessionKey));
    // the acme session means nothing on globex's host
    expect((await client(b, globex.host, cookie).get('/api/configitems/cors.origins')).status).toBe(401);
    // logout: one MULTI over the session and the index
    expect((await client(b, acme.host, cookie).get('/api/logout')).body).toMatchObject({ valid: true });
    expect((await client(a, acme.host, cookie).get('/api/configitems/cors.origins')).status).toBe(401);
  });

  it('a password set by the admin ends every session of the person (one DEL over several keys)', async () => {
    const first = await loginCookie(a, acme.host, 'siri', ACME_PASSWORDS.siri);
    const second = await loginCookie(b, acme.host, 'siri', ACME_PASSWORDS.siri);
    const admin = client(a, acme.host, await loginCookie(a, acme.host, 'admin', ACME_PASSWORDS.admin));
    const set = await admin.put('/api/persons/siri').send({ person_data: { password: 'Siri-Cluster-Pass-2' }, password_match: 'Siri-Cluster-Pass-2' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    for (const cookie of [first, second]) expect((await client(b, acme.host, cookie).get('/api/configitems/cors.origins')).status).toBe(401);
  });

  it('a sign-on hash issued by one process is consumed once through /api/validate on the other', async () => {
    const login = await client(a, acme.host).post('/api/login').send({ user_name: 'kari', password: ACME_PASSWORDS.kari, login: 1 });
    const { hash } = login.body.login[0] as { hash: string };
    const forward = 'https://portal.acme.example/';
    const validate = () => client(b, acme.host).get('/api/validate').query({ user_name: 'kari', hash, forward_url: forward }).redirects(0);
    const ok = await validate();
    expect(ok.status).toBe(302);
    expect(ok.headers.location).toBe(forward);
    const session = (ok.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('tg-visit='))!.split(';')[0];
    expect((await client(a, acme.host, session).get('/api/configitems/cors.origins')).status).toBe(200);
    expect((await validate()).status).toBe(401);
  });

  it('login throttling counts across processes and per tenant', async () => {
    for (let i = 0; i < 5; i++) {
      const app = i % 2 ? a : b;
      expect((await client(app, acme.host).post('/api/login').send({ user_name: 'nils', password: 'wrong', login: 1 })).status).toBe(401);
    }
    const sixth = await client(a, acme.host).post('/api/login').send({ user_name: 'nils', password: ACME_PASSWORDS.nils, login: 1 });
    expect(sixth.status).toBe(429);
    expect((await keysMatching(`{t${acme.tenantId}}:rl:login:*`)).length).toBeGreaterThan(0);
    // the same user name and address on another tenant has a counter of its own
    await loginCookie(b, globex.host, 'admin', GLOBEX_PASSWORDS.admin);
  });

  it('a config item changed through one process applies at once on the other (pub/sub invalidation), and its rate limit is shared', async () => {
    const adminA = client(a, globex.host, await loginCookie(a, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    const adminB = client(b, globex.host, await loginCookie(b, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    // b has the tenant (and its config) cached before the change
    expect((await adminB.get('/api/person')).headers['ratelimit-policy']).toBe('"minute";q=1200;w=60');
    expect((await adminA.put('/api/configitems/api.rate_limit.per_minute').send({ value: 6 })).status).toBe(200);
    // the policy header comes from b's cached tenant config
    await waitFor('b applies the new limit', async () => (await adminB.get('/api/person')).headers['ratelimit-policy'] === '"minute";q=6;w=60', 5000);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await adminA.get('/api/person')).status, (await adminB.get('/api/person')).status);
    // one window for the caller over both processes: 6 calls pass, whichever process they reach
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(6);
    expect(statuses).toContain(429);
  });

  it('a message is signalled, queued under a hash-tagged BullMQ prefix and delivered by a worker; a repeat with its Idempotency-Key is replayed', async () => {
    const admin = client(b, acme.host, await loginCookie(b, acme.host, 'admin', ACME_PASSWORDS.admin));
    const body = { user_name: 'ola', title: 'Cluster delivery', text: 'Delivered through a Redis Cluster.', send_medium: 'email' };
    const first = await admin.post('/api/messages').set('Idempotency-Key', 'cluster-1').send(body);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await admin.post('/api/messages').set('Idempotency-Key', 'cluster-1').send(body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const mail = await waitFor('the mail at the SMTP sink', () => smtp.mails.find((m) => m.headers.subject === 'Cluster delivery'));
    expect(mail.rcptTo).toEqual(['ola@acme.example']);
    expect(smtp.mails.filter((m) => m.headers.subject === 'Cluster delivery')).toHaveLength(1);
    const prefix = a.container.resolve(QUEUE_PREFIX);
    const queueKeys = await keysMatching(`${prefix}:{messages}:messages:*`);
    expect(queueKeys.length).toBeGreaterThan(0);
    expect(new Set(await Promise.all(queueKeys.map(slotOf))).size).toBe(1);
  });

  it("deleting a tenant's Redis keys finds them on every master, and leaves the other tenant's alone", async () => {
    expect((await keysMatching(`{t${globex.tenantId}}:*`)).length).toBeGreaterThan(0);
    const acmeBefore = (await keysMatching(`{t${acme.tenantId}}:*`)).length;
    const line = await a.container.resolve(RedisKeysPurger).purge({ id: globex.tenantId, slug: globex.slug, schema: globex.schema });
    expect(line).toMatch(/^[1-9]\d* Redis keys$/);
    expect(await keysMatching(`{t${globex.tenantId}}:*`)).toEqual([]);
    expect((await keysMatching(`{t${acme.tenantId}}:*`)).length).toBe(acmeBefore);
  });

  it('with the whole cluster away, session calls, logout and login answer 503 with Retry-After at once; back once it is up', async () => {
    const cookie = await loginCookie(a, acme.host, 'admin', ACME_PASSWORDS.admin);
    const login = () => client(b, acme.host).post('/api/login').send({ user_name: 'admin', password: ACME_PASSWORDS.admin, login: 1 });
    await cluster.stop();
    try {
      // ioredis' Cluster would queue these until the cluster is back; they must fail instead
      for (const res of [await client(a, acme.host, cookie).get('/api/persons'), await client(b, acme.host, cookie).post('/api/logout'), await login()]) {
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        expect(res.body).toMatchObject({ valid: false, errorcode: 503 });
        expect(res.headers['retry-after']).toBe('5');
      }
    } finally {
      await cluster.restart();
    }
    // the nodes come back empty (no persistence in this test): log in anew
    await expect.poll(async () => (await login()).status, { timeout: 20_000 }).toBe(200);
  });
});
