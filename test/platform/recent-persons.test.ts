import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import request from 'supertest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { startServer } from '../../src/server';
import { KNEX, REDIS } from '../../src/platform/tokens';
import type { RedisClient } from '../../src/platform/redis/redis-client';
import { RECENT_PERSONS_KEY } from '../../src/platform/lifecycle/recent-persons';
import { TENANT_PURGERS } from '../../src/platform/tenant-scope/tenant-purgers';
import { ACME_SWT, inAnHour, swtToken } from '../identity/sso/swt-test-token';

/**
 * The start-up's preload of recent persons (src/platform/lifecycle/recent-persons.ts): a stopped API
 * keeps the ids of the persons it served, the next one loads their account rows and own views before
 * it listens. Statements are counted per tenant schema on every pg client (pg.Client.prototype.query).
 */
const counted = new Map<string, number>();
let recording = false;
// eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with the client as this (.apply below)
const original = pg.Client.prototype.query as (...a: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (this: object, ...args: unknown[]) {
  const first = args[0] as string | { text?: string } | undefined;
  const text = typeof first === 'string' ? first : (first?.text ?? '');
  if (recording)
    for (const schema of new Set([...text.matchAll(/"(tenant_[a-z0-9_]+)"\./g)].map((m) => m[1]))) counted.set(schema, (counted.get(schema) ?? 0) + 1);
  return original.apply(this, args);
};

let importer: TestApp;
let a: DemoTenant;
let b: DemoTenant;
beforeAll(async () => {
  importer = await createTestApp();
  [a, b] = await Promise.all([importDemoTenant(importer, 'acme'), importDemoTenant(importer, 'acme')]);
}, 60_000);
afterAll(async () => {
  await importer?.close();
});

/**
 * The product's default preload (the test environment turns it off for the other files). The servers of this
 * file skip the request-path warm-up: its anonymous requests count against the first
 * tenant's rate limit of 127.0.0.1, which six starts in a minute would use up for the other test files
 * (the test beds' own platform databases reuse tenant ids, and so the Redis keys of those limits).
 */
const SERVER_ENV = { STARTUP_WARMUP_REQUESTS: '0', STARTUP_PRELOAD_PERSONS: '5000' };
const token = (user: string) => `SWT ${swtToken(ACME_SWT.secret, { Issuer: ACME_SWT.issuer, ExpiresOn: inAnHour(), username: user })}`;
const ownView = (server: { server: import('node:http').Server }, t: DemoTenant, user: string) =>
  request(server.server).get('/api/person').set('Host', t.host).set('Authorization', token(user));
const knex = () => importer.container.resolve<Knex>(KNEX);
const idOf = async (t: DemoTenant, user: string): Promise<number> =>
  (await knex().withSchema(t.schema).table('persons').where({ user_name: user }).first('id')).id;

/** Starts an API of its own, sends `requests` (tenant, user) as GET /api/person, stops it gracefully. */
async function serveAndStop(env: Record<string, string>, requests: [DemoTenant, string][]) {
  const t = await createTestApp({ ...SERVER_ENV, ...env });
  const server = await startServer(t.container, 0);
  for (const [tenant, user] of requests) expect((await ownView(server, tenant, user)).status).toBe(200);
  await server.close();
  await t.close();
}

describe('recent persons preloaded at start', () => {
  it("answers the persons the last process served without a statement, as they are now, each from its own tenant's schema", async () => {
    await serveAndStop({}, [
      [a, 'admin'],
      [a, 'kari'],
      [b, 'admin'],
    ]);
    const redis = importer.container.resolve<RedisClient>(REDIS);
    const members = await redis.zrangebyscore(RECENT_PERSONS_KEY, '-inf', '+inf');
    expect(members).toEqual(
      expect.arrayContaining([`${a.tenantId}:${await idOf(a, 'admin')}`, `${a.tenantId}:${await idOf(a, 'kari')}`, `${b.tenantId}:${await idOf(b, 'admin')}`]),
    );
    expect(await redis.ttl(RECENT_PERSONS_KEY)).toBeGreaterThan(0);
    // changed while no API ran: the same person id in both schemas, different names
    await knex().withSchema(a.schema).table('persons').where({ user_name: 'admin' }).update({ lastname: 'Aye' });
    await knex().withSchema(b.schema).table('persons').where({ user_name: 'admin' }).update({ lastname: 'Bee' });

    const t = await createTestApp(SERVER_ENV);
    const server = await startServer(t.container, 0);
    counted.clear();
    recording = true;
    try {
      const [aAdmin, aKari, bAdmin] = await Promise.all([ownView(server, a, 'admin'), ownView(server, a, 'kari'), ownView(server, b, 'admin')]);
      expect(aAdmin.body.person[0].lastname).toBe('Aye');
      expect(bAdmin.body.person[0].lastname).toBe('Bee');
      expect(aKari.body.person[0].user_name).toBe('kari');
      expect(counted.get(a.schema) ?? 0).toBe(0);
      expect(counted.get(b.schema) ?? 0).toBe(0);
      // a person the last process did not serve reads as a first request does: the counter sees it
      expect((await ownView(server, a, 'ola')).status).toBe(200);
      expect(counted.get(a.schema)).toBeGreaterThanOrEqual(2);
    } finally {
      recording = false;
      await server.close();
      await t.close();
    }
  }, 60_000);

  it('loads a person renamed while no API ran as renamed (by id, read at the start)', async () => {
    await serveAndStop({}, [[b, 'siri']]);
    const siri = await idOf(b, 'siri');
    await knex().withSchema(b.schema).table('persons').where({ id: siri }).update({ user_name: 'siri-renamed' });
    const t = await createTestApp(SERVER_ENV);
    const server = await startServer(t.container, 0);
    try {
      expect((await ownView(server, b, 'siri')).status).toBe(401);
      const renamed = await ownView(server, b, 'siri-renamed');
      expect(renamed.status).toBe(200);
      expect(renamed.body.person[0].user_name).toBe('siri-renamed');
    } finally {
      await server.close();
      await t.close();
    }
  }, 60_000);

  it('STARTUP_PRELOAD_PERSONS=0 keeps nothing and loads nothing: the first request reads', async () => {
    const per = await idOf(a, 'per');
    await serveAndStop({ STARTUP_PRELOAD_PERSONS: '0' }, [[a, 'per']]);
    const redis = importer.container.resolve<RedisClient>(REDIS);
    expect(await redis.zscore(RECENT_PERSONS_KEY, `${a.tenantId}:${per}`)).toBeNull();
    const t = await createTestApp({ ...SERVER_ENV, STARTUP_PRELOAD_PERSONS: '0' });
    const server = await startServer(t.container, 0);
    counted.clear();
    recording = true;
    try {
      // kari was kept by the first test's stop, but this process loads nobody
      expect((await ownView(server, a, 'kari')).status).toBe(200);
      expect(counted.get(a.schema)).toBeGreaterThanOrEqual(2);
    } finally {
      recording = false;
      await server.close();
      await t.close();
    }
  }, 60_000);

  it("a deleted tenant's members leave the set (the tenant purgers run it)", async () => {
    const redis = importer.container.resolve<RedisClient>(REDIS);
    const gone = 900_000 + Math.floor(Math.random() * 90_000);
    await redis.zadd(RECENT_PERSONS_KEY, Date.now(), `${gone}:1`, Date.now(), `${gone}:2`, Date.now(), `${gone}1:3`);
    const purger = importer.container.resolveAll(TENANT_PURGERS).find((p) => p.name === 'recent-persons')!;
    expect(await purger.purge({ id: gone, slug: 'gone', schema: 'tenant_gone' })).toBe('2 recent persons');
    expect(await redis.zscore(RECENT_PERSONS_KEY, `${gone}:1`)).toBeNull();
    expect(await redis.zscore(RECENT_PERSONS_KEY, `${gone}:2`)).toBeNull();
    // another tenant whose id starts with the same digits keeps its member
    expect(await redis.zscore(RECENT_PERSONS_KEY, `${gone}1:3`)).not.toBeNull();
    await redis.zrem(RECENT_PERSONS_KEY, `${gone}1:3`);
  });
});
