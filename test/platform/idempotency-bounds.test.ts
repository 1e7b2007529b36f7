import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { asAcme } from '../support/login';
import { KNEX, REDIS } from '../../src/platform/tokens';
import { tenantKeyPrefix } from '../../src/platform/redis/redis-keys';

/*
 * The Idempotency-Key store, bounded and honest (issue 40, item 4): the access rule and input
 * validation run before a key is recorded, only 2xx answers are kept, a caller holds at most
 * IDEMPOTENCY_MAX_KEYS live keys (429 past it), and an answer that carried a secret is not kept:
 * a repeat is a 409 "already done".
 */
const MAX_KEYS = 4;
let t: TestApp;
let acme: DemoTenant;

beforeAll(async () => {
  t = await createTestApp({ IDEMPOTENCY_MAX_KEYS: String(MAX_KEYS) });
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => {
  await t?.close();
});

const db = () => t.container.resolve<Knex>(KNEX).withSchema(acme.schema);
const orgId = async (name: string) => (await db().table('organisations').where({ name }).first('id')).id as number;
const personId = async (userName: string) => (await db().table('persons').where({ user_name: userName }).first('id')).id as number;
/** What the store holds for a person: their entries and their live-key index. */
const stored = async (userName: string) => {
  const redis = t.container.resolve(REDIS);
  const prefix = tenantKeyPrefix({ id: acme.tenantId }, redis);
  const id = await personId(userName);
  return { entries: await redis.keys(`${prefix}idem:${id}:*`), live: await redis.zcard(`${prefix}idem-live:${id}`) };
};

describe('Idempotency-Key: what is recorded', () => {
  it('a 403 of the access rule records no key and is not replayed: the same key with an allowed input works', async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    const roleId = (await db().table('roles').where({ name: 'Welder' }).first('id')).id as number;
    const person = (org: number, userName: string) => ({ organisation_id: org, role_id: roleId, person_data: { user_name: userName, firstname: 'Idem' } });
    const refused = await kari
      .post('/api/persons')
      .set('Idempotency-Key', 'person-1')
      .send(person(await orgId('Human Resources'), 'idem-hr'));
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(await stored('kari')).toEqual({ entries: [], live: 0 });
    // today's code kept the 403 under the key, so this was a 422 "key used for a different request"
    const fixed = await kari
      .post('/api/persons')
      .set('Idempotency-Key', 'person-1')
      .send(person(await orgId('Operations North'), 'idem-north'));
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    const replay = await kari
      .post('/api/persons')
      .set('Idempotency-Key', 'person-1')
      .send(person(await orgId('Operations North'), 'idem-north'));
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(fixed.body);
  });

  it('a 403 of a route rule for someone not allowed at all records nothing (ola, POST /api/webhooks)', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const res = await ola
      .post('/api/webhooks')
      .set('Idempotency-Key', 'hook-1')
      .send({ url: 'https://hooks.example.com/x', events: ['person.created'] });
    expect(res.status).toBe(403);
    expect(await stored('ola')).toEqual({ entries: [], live: 0 });
  });

  it('a 420 of the input records no key: the same key with the input fixed runs', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const bad = await admin.post('/api/messages').set('Idempotency-Key', 'msg-bad').send({ user_name: 'ola', title: 'x', text: 'y', send_medium: 'pigeon' });
    expect(bad.body.errorcode).toBe(420);
    const ok = await admin
      .post('/api/messages')
      .set('Idempotency-Key', 'msg-bad')
      .send({ user_name: 'ola', title: 'idem fixed input', text: 'y', send_medium: 'email' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('Idempotency-Key: a bounded store', () => {
  it(`a caller holds at most IDEMPOTENCY_MAX_KEYS (${MAX_KEYS}) live keys: past it 429 in the envelope with Retry-After; replays and requests without a key still work`, async () => {
    const siri = await asAcme(t, acme.host, 'siri');
    // messages to oneself are allowed to everyone; each with its own key
    const send = (key: string | null, title: string) => {
      const r = siri.post('/api/messages');
      if (key) r.set('Idempotency-Key', key);
      return r.send({ user_name: 'siri', title, text: 'bounded store', send_medium: 'email' });
    };
    for (let i = 1; i <= MAX_KEYS; i++) {
      const r = await send(`bound-${i}`, `bound ${i}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    expect((await stored('siri')).live).toBe(MAX_KEYS);
    const over = await send('bound-over', 'bound over');
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ valid: false, errorcode: 429, message: expect.stringContaining(`${MAX_KEYS} keys`) });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    const count = async (title: string) => Number((await db().table('messages').where({ title }).count({ n: '*' }))[0].n);
    expect(await count('bound over')).toBe(0);
    // a held key still replays, a call without a key still runs, another caller is not affected
    expect((await send('bound-1', 'bound 1')).headers['idempotent-replayed']).toBe('true');
    expect((await send(null, 'bound unkeyed')).status).toBe(200);
    const nils = await asAcme(t, acme.host, 'nils');
    expect(
      (await nils.post('/api/messages').set('Idempotency-Key', 'bound-over').send({ user_name: 'nils', title: 'nils keyed', text: 'x', send_medium: 'email' }))
        .status,
    ).toBe(200);
    // keys of refused requests never count: ola's refusals above left nothing
    expect((await stored('ola')).live).toBe(0);
  });
});

describe('Idempotency-Key: answers that carry a secret', () => {
  it('the SWT checker\'s built token is not kept: a repeat is 409 "already done" and Redis never holds the token', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const first = await admin.post('/api/configitems/api.oauth.secret/check').set('Idempotency-Key', 'swt-check-1').send({ user_name: 'ola' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const token = first.body.token as string;
    expect(token).toContain('HMACSHA256=');
    const repeat = await admin.post('/api/configitems/api.oauth.secret/check').set('Idempotency-Key', 'swt-check-1').send({ user_name: 'ola' });
    expect(repeat.status).toBe(409);
    expect(repeat.body).toMatchObject({ valid: false, errorcode: 409, message: expect.stringContaining('already done') });
    expect(JSON.stringify(repeat.body)).not.toContain('HMACSHA256');
    const redis = t.container.resolve(REDIS);
    for (const key of (await stored('admin')).entries) expect((await redis.get(key)) ?? '').not.toContain('HMACSHA256');
  });
});
