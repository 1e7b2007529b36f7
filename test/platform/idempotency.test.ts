import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Knex } from 'knex';
import { client, useAcmeApp } from '../support/test-app';
import { asAcme } from '../support/login';
import { KNEX } from '../../src/platform/tokens';
import { SendMessageFlow } from '../../src/flows/messages/send-message';

const bed = useAcmeApp();

afterAll(() => {
  vi.restoreAllMocks();
});

const countMessages = async (title: string) =>
  Number((await bed.t.container.resolve<Knex>(KNEX).withSchema(bed.acme.schema).table('messages').where({ title }).count({ n: '*' }))[0].n);
const message = (title: string) => ({ user_name: 'ola', title, text: 'Idempotency probe', send_medium: 'email' });

describe('Idempotency-Key on POST', () => {
  it('a repeat replays status and body with Idempotent-Replayed: true and creates no second message', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const first = await admin.post('/api/messages').set('Idempotency-Key', 'msg-1').send(message('idem once'));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same input in another order and form is the same request.
    const again = await admin
      .post('/api/messages')
      .set('Idempotency-Key', 'msg-1')
      .type('form')
      .send({ send_medium: 'email', text: 'Idempotency probe', title: 'idem once', user_name: 'ola' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    if (process.env.SHOW_HEADERS) console.log('replayed answer headers:', again.headers);
    expect(await countMessages('idem once')).toBe(1);
  });

  it('the same key for a different request is 422 with errorcode 420 naming the header; a malformed key is 420', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    expect((await admin.post('/api/messages').set('Idempotency-Key', 'msg-2').send(message('idem a'))).status).toBe(200);
    const other = await admin.post('/api/messages').set('Idempotency-Key', 'msg-2').send(message('idem b'));
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ valid: false, errorcode: 420, parameter: 'Idempotency-Key' });
    expect(await countMessages('idem b')).toBe(0);
    const bad = await admin.post('/api/messages').set('Idempotency-Key', 'x'.repeat(256)).send(message('idem c'));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errorcode: 420, parameter: 'Idempotency-Key' });
  });

  it('4xx answers are not kept (issue 40): the same key with the input fixed runs; keys are per caller and per tenant', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const missing = await admin.post('/api/messages').set('Idempotency-Key', 'msg-3').send({ user_name: 'ola' });
    expect(missing.status).toBe(400);
    const again = await admin.post('/api/messages').set('Idempotency-Key', 'msg-3').send({ user_name: 'ola' });
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body).toEqual(missing.body);
    const fixed = await admin.post('/api/messages').set('Idempotency-Key', 'msg-3').send(message('idem fixed'));
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    expect(await countMessages('idem fixed')).toBe(1);
    // Another person with the same key runs their own request.
    const kari = await asAcme(bed.t, bed.acme.host, 'kari');
    const own = await kari.post('/api/messages').set('Idempotency-Key', 'msg-1').send(message('idem kari'));
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.headers['idempotent-replayed']).toBeUndefined();
    expect(await countMessages('idem kari')).toBe(1);
  });

  it('a repeat while the first still runs is 409 with Retry-After; a 5xx is not kept, so a retry runs', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with apply(this)
    const original = SendMessageFlow.prototype.send;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const started = new Promise<void>((r) => (entered = r));
    vi.spyOn(SendMessageFlow.prototype, 'send').mockImplementationOnce(async function (this: SendMessageFlow, ...args) {
      entered();
      await gate;
      return original.apply(this, args);
    });
    const slow = admin
      .post('/api/messages')
      .set('Idempotency-Key', 'msg-4')
      .send(message('idem slow'))
      .then((r) => r);
    await started;
    const busy = await admin.post('/api/messages').set('Idempotency-Key', 'msg-4').send(message('idem slow'));
    expect(busy.status).toBe(409);
    expect(busy.headers['retry-after']).toBe('1');
    release();
    expect((await slow).status).toBe(200);
    expect(await countMessages('idem slow')).toBe(1);

    vi.spyOn(SendMessageFlow.prototype, 'send').mockRejectedValueOnce(new Error('boom'));
    const failed = await admin.post('/api/messages').set('Idempotency-Key', 'msg-5').send(message('idem retry'));
    expect(failed.status).toBe(500);
    const retry = await admin.post('/api/messages').set('Idempotency-Key', 'msg-5').send(message('idem retry'));
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await countMessages('idem retry')).toBe(1);
  });

  it('login is not covered: the cookie is never replayed', async () => {
    const body = { user_name: 'ola', password: 'Ola-Worker-Pass-1', login: 1 };
    const a = await client(bed.t, bed.acme.host).post('/api/login').set('Idempotency-Key', 'login-1').send(body);
    const b = await client(bed.t, bed.acme.host).post('/api/login').set('Idempotency-Key', 'login-1').send(body);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(a.headers['set-cookie']).not.toEqual(b.headers['set-cookie']);
  });
});
