import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import express from 'express';
import knex from 'knex';
import pino from 'pino';
import request from 'supertest';
import { buildContainer, closeContainer } from '../../src/container';
import { buildApp } from '../../src/app';
import { TenantResolver } from '../../src/platform/tenant-scope/tenant-resolver';
import { PrincipalCache } from '../../src/platform/auth/principal-cache';
import { errorMiddleware } from '../../src/platform/http/error-middleware';
import { freePort, startLocalRedis } from '../../src/platform/dev/local-services';
import { client, importDemoTenant, testEnv, type DemoTenant, type TestApp } from '../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../support/login';

let t: TestApp;
let acme: DemoTenant;
let redis: Awaited<ReturnType<typeof startLocalRedis>>;
const redisDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outage-redis-'));

beforeAll(async () => {
  // A Redis of our own, so this file can stop it without touching other tests.
  redis = await startLocalRedis({ dir: redisDir });
  const env = testEnv();
  const container = buildContainer(env, { databaseUrl: inject('databaseUrl'), redisUrl: redis.url }, pino({ level: 'silent' }));
  await container.resolve(TenantResolver).start();
  await container.resolve(PrincipalCache).start();
  t = {
    app: buildApp(container),
    container,
    env,
    close: async () => {
      await container.resolve(TenantResolver).stop();
      await container.resolve(PrincipalCache).stop();
      await closeContainer(container);
    },
  };
  acme = await importDemoTenant(t, 'acme');
});

afterAll(async () => {
  await t?.close();
  await redis?.kill();
  fs.rmSync(redisDir, { recursive: true, force: true });
});

function expect503(res: { status: number; body: any; headers: any }) {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(res.body).toMatchObject({ valid: false, errorcode: 503 });
  // 5 s for a dependency that is down, 2 s after a statement timeout
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.body.message).not.toMatch(/ECONNREFUSED|at |\.ts/);
}

describe('dependencies down answer 503, concurrent identical writes never 500', () => {
  it('twenty identical registrations at once all succeed, as one after the other would', async () => {
    const cookie = await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin);
    const admin = client(t, acme.host, cookie);
    const list = (await admin.get('/api/competences?limit=100&types=course')).body.competences as { competence_id: number }[];
    const competence = list[0].competence_id;
    const send = () => admin.put(`/api/personcompetences/${competence}`).send({ user_name: 'nils', passed: 100 });
    const answers = (await Promise.all(Array.from({ length: 5 }, () => Promise.all([send(), send(), send(), send()])))).flat();
    // One after the other, each would succeed and supersede the previous one.
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
    const current = await admin.get(`/api/personcompetences/${competence}?user_name=nils`);
    expect(current.status).toBe(200);
  });

  it('signing on twice at once: one sign-on, the other a 409', async () => {
    const cookie = await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin);
    const admin = client(t, acme.host, cookie);
    const events = (await admin.get('/api/events?limit=100&mode=all')).body.events as { event_id: number; title: string }[];
    const event = events.find((e) => e.title === 'HSE basic course, December')!.event_id;
    const signOn = () => admin.post(`/api/personevents/${event}`).send({ user_name: 'kari' });
    const answers = await Promise.all([signOn(), signOn(), signOn()]);
    for (const res of answers) expect([200, 409], JSON.stringify(res.body)).toContain(res.status);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it('creating the same person twice at once: one is created, the other told the user name is taken', async () => {
    const admin = client(t, acme.host, await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin));
    const ola = (await admin.get('/api/persons/ola')).body.persons[0];
    const body = { organisation_id: ola.organisation_id, role_id: ola.roles[0].role_id, person_data: { user_name: 'twin' } };
    const answers = await Promise.all([1, 2, 3].map(() => admin.post('/api/persons').send(body)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) expect(r.body).toMatchObject({ errorcode: 420, parameter: 'person_data[user_name]' });
  });

  it('with Redis stopped, session calls, logout and login answer 503 with Retry-After; back once it is up', async () => {
    const cookie = await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin);
    const admin = client(t, acme.host, cookie);
    await redis.kill();
    try {
      expect503(await admin.get('/api/persons'));
      expect503(await admin.post('/api/logout'));
      expect503(await client(t, acme.host).post('/api/login').send({ user_name: 'admin', password: ACME_PASSWORDS.admin, login: 1 }));
    } finally {
      await redis.restart();
    }
    await expect.poll(async () => (await admin.get('/api/persons')).status, { timeout: 10_000 }).toBe(200);
  });
});

describe('PostgreSQL errors in the error middleware', () => {
  const appThrowing = (make: () => Promise<unknown>) => {
    const app = express();
    app.get('/x', async () => {
      await make();
    });
    app.use(errorMiddleware(pino({ level: 'silent' })));
    return app;
  };

  it('a refused connection and a statement timeout are 503; a unique violation 409; a bug 500 without details', async () => {
    const quiet = { warn() {}, error() {}, debug() {}, deprecate() {} };
    const closed = knex({
      client: 'pg',
      connection: `postgres://x:y@127.0.0.1:${await freePort()}/none`,
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 2000,
      log: quiet,
    });
    const db = knex({ client: 'pg', connection: inject('databaseUrl'), pool: { min: 0, max: 1 } });
    try {
      expect503(await request(appThrowing(() => closed.raw('select 1'))).get('/x'));
      const slow = () =>
        db.transaction(async (tx) => {
          await tx.raw('set local statement_timeout = 10');
          await tx.raw('select pg_sleep(5)');
        });
      expect503(await request(appThrowing(slow)).get('/x'));
      const dup = () => db.raw('create temp table if not exists u(x int primary key); insert into u values (1), (1)');
      const conflict = await request(appThrowing(dup)).get('/x');
      expect(conflict.status).toBe(409);
      expect(conflict.body).toMatchObject({ valid: false, errorcode: 409 });
      const bug = await request(appThrowing(() => db.raw('select * from no_such_table'))).get('/x');
      expect(bug.status).toBe(500);
      expect(bug.body.message).not.toMatch(/no_such_table|relation|select/i);
      for (const [code, name] of [
        ['57P01', 'error'],
        ['53300', 'error'],
        ['40001', 'error'],
        ['40P01', 'error'],
        ['', 'KnexTimeoutError'],
        ['', 'MaxRetriesPerRequestError'],
      ]) {
        const err = Object.assign(new Error('x'), { code, name });
        expect503(await request(appThrowing(() => Promise.reject(err))).get('/x'));
      }
      expect503(await request(appThrowing(() => Promise.reject(new Error('Connection is closed.')))).get('/x'));
      // a connection lost during a query: knex puts the query in front of pg's message
      for (const message of ['select 1 - Connection terminated unexpectedly', 'select 1 - Client was closed and is not queryable']) {
        expect503(await request(appThrowing(() => Promise.reject(new Error(message)))).get('/x'));
      }
    } finally {
      await closed.destroy();
      await db.destroy();
    }
  });
});
