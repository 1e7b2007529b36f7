import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { client, createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { KNEX } from '../../../src/platform/tokens';
import { PrincipalCache } from '../../../src/platform/auth/principal-cache';
import { cachesSettled } from '../../support/cache-settle';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let knex: Knex;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  globex = await importDemoTenant(t, 'globex');
  knex = t.container.resolve(KNEX);
});

afterAll(async () => {
  await t?.close();
});

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** An UPDATE that fires no trigger: what the cache cannot know about. */
async function silentUpdate(schema: string, userName: string, change: Record<string, unknown>): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw('set local session_replication_role = replica');
    await trx.withSchema(schema).table('persons').where({ user_name: userName }).update(change);
  });
}

const superuserOf = async (c: Awaited<ReturnType<typeof asAcme>>) => (await c.get('/api/person')).body.person[0];

describe('principal cache', () => {
  it('serves a logged-in person without reading the row again, and drops it when the row changes by any path', async () => {
    expect(t.container.resolve(PrincipalCache).enabled).toBe(true);
    const ola = await asAcme(t, acme.host, 'ola');
    // GET /api/persons lists the whole tenant only for a superuser; ola is none
    expect((await ola.get('/api/persons')).status).toBe(403);

    // A change that announces nothing is not seen: the principal comes from the cache.
    await silentUpdate(acme.schema, 'ola', { superuser: true });
    expect((await ola.get('/api/persons')).status).toBe(403);

    // A change through SQL (as another process or an operator would make it) is announced on
    // commit, and the row is read again: now with the superuser flag set silently before.
    await knex.withSchema(acme.schema).table('persons').where({ user_name: 'ola' }).update({ password_changed_at: new Date() });
    await eventually('ola is a superuser', async () => (await ola.get('/api/persons')).status === 200);
    await knex.withSchema(acme.schema).table('persons').where({ user_name: 'ola' }).update({ superuser: false });
    await eventually('ola is no superuser again', async () => (await ola.get('/api/persons')).status === 403);
    expect(await superuserOf(ola)).toMatchObject({ user_name: 'ola' });
  });

  it('a deleted person is logged out at once, and a write request drops what this process cached of the tenant', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const siri = await asAcme(t, acme.host, 'siri');
    expect((await siri.get('/api/person')).status).toBe(200);
    // silently made superuser: the cached row still says no ...
    await silentUpdate(acme.schema, 'siri', { superuser: true });
    expect((await siri.get('/api/persons')).status).toBe(403);
    // ... a write that changes no account (keepsAccounts: a sign-on) keeps it ...
    const event = (await knex.withSchema(acme.schema).table('events').where('starts_at', '>', new Date()).whereNull('parent_id').first('id')).id;
    expect((await admin.post(`/api/personevents/${event}`).send({ user_name: 'siri' })).status).toBeLessThan(500);
    expect((await siri.get('/api/persons')).status).toBe(403);
    // ... and so does a write of nothing cached (keepsCachedData: a message and its outbox rows) ...
    expect((await admin.post('/api/messages').send({ user_name: 'siri', title: 'Hello', text: 'x' })).status).toBe(200);
    expect((await siri.get('/api/persons')).status).toBe(403);
    // ... until any other write request of the tenant in this process
    const created = await admin.post('/api/organisations').send({ organisation_data: JSON.stringify({ name: 'Principal cache test unit' }) });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect((await siri.get('/api/persons')).status).toBe(200);
    await silentUpdate(acme.schema, 'siri', { superuser: false });

    await knex.withSchema(acme.schema).table('persons').where({ user_name: 'siri' }).delete();
    await eventually('siri is logged out', async () => (await siri.get('/api/person')).status === 401);
  });

  it('a message (keepsCachedData) drops nothing cached: it announces no tenant_data_changed and bumps no data version', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const versions = t.container.resolve(PrincipalCache);
    const count = () => Number(versions.dataVersion(acme.schema)!.split(':')[1]);
    await cachesSettled(t, knex, acme.schema);
    const before = count();
    const res = await admin.post('/api/messages').send({ user_name: 'ola', title: 'No cache drop', text: 'x' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // the marker's own notification is the only bump: the message's writes (messages, the outbox)
    // fire no tenant_data_changed, and the route does not drop the tenant's cached reads
    await cachesSettled(t, knex, acme.schema);
    expect(count()).toBe(before + 1);
  });

  it('the same person id in two tenants never shares an entry', async () => {
    const acmeAdmin = await asAcme(t, acme.host, 'admin');
    const acmeId = (await acmeAdmin.get('/api/person')).body.person[0].person_id;
    const globexRow = await knex.withSchema(globex.schema).table('persons').where({ id: acmeId }).first('user_name');
    expect(globexRow, 'the demo tenants share person ids').toBeTruthy();
    for (let i = 0; i < 3; i++) {
      expect((await acmeAdmin.get('/api/person')).body.person[0].user_name).toBe('admin');
    }
    const userName = globexRow.user_name as string;
    const cookie = await loginCookie(t, globex.host, userName, GLOBEX_PASSWORDS[userName]);
    const person = (await client(t, globex.host, cookie).get('/api/person')).body.person[0];
    expect(person).toMatchObject({ user_name: userName, person_id: acmeId });
  });

  it('while the change listener is away the cache is bypassed, and it comes back', async () => {
    const cache = t.container.resolve(PrincipalCache);
    const per = await asAcme(t, acme.host, 'per');
    expect((await per.get('/api/persons')).status).toBe(403);
    await knex.raw("select pg_terminate_backend(pid) from pg_stat_activity where query ilike 'listen principal_changed%'");
    await eventually('the cache notices', async () => !cache.enabled);
    // nothing announced, but what was cached is gone (and a reconnect starts empty): the row is read
    await silentUpdate(acme.schema, 'per', { superuser: true });
    expect((await per.get('/api/persons')).status).toBe(200);
    await eventually('the listener is back', async () => cache.enabled);
    await knex.withSchema(acme.schema).table('persons').where({ user_name: 'per' }).update({ superuser: false });
    await eventually('per is no superuser again', async () => (await per.get('/api/persons')).status === 403);
  });
});
