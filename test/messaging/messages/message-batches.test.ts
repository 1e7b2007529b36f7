import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { client } from '../../support/test-app';
import { tenantDb } from '../../courses/events/events-support';
import { CLUSTERS } from '../../../src/platform/clusters/clusters';
import { KNEX } from '../../../src/platform/tokens';
import { TenantDb } from '../../../src/platform/tenant-scope/tenant-db';
import { MessageInsertBatcher } from '../../../src/messaging/messages/message-insert-batcher';
import { insertOneToUserName, type ToUserName } from '../../../src/messaging/messages/insert-to-user-name';
import { RECIPIENTS_BY_USER_NAME } from '../../../src/flows/messages/send-message';

// Group commit of a superuser's messages (message-insert-batcher.ts). No workers: what is stored
// stays in the outbox, which is all these tests look at.
let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let batcher: MessageInsertBatcher;
beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  globex = await importDemoTenant(t, 'globex');
  batcher = t.container.resolve(MessageInsertBatcher);
});
afterAll(async () => t?.close());

/** The TenantDb the API's requests of `tenant` get (its connection group). */
const apiDb = (tenant: DemoTenant) => new TenantDb(t.container.resolve(CLUSTERS).forTenant({ id: tenant.tenantId }), tenant.schema);
const idOf = async (tenant: DemoTenant, userName: string) =>
  (await tenantDb(t, tenant).table('persons').where({ user_name: userName }).first('id')).id as number;
const rowsTitled = (tenant: DemoTenant, prefix: string) =>
  tenantDb(t, tenant)
    .table('messages as m')
    .join('persons as p', 'p.id', 'm.recipient_id')
    .where('m.title', 'like', `${prefix}%`)
    .select('m.id', 'm.title', 'p.user_name');
const counted = () => ({ ...batcher.counts });

function request(userName: string, title: string, senderId: number, media: ToUserName['media'] = ['email']): ToUserName {
  const send_medium = media.length === 2 ? 'both' : media[0];
  return { userName, media, message: { kind: 'message', sender_id: senderId, title, text: 'x', cc: [], reply_to: null, send_medium } };
}

/**
 * POSTs `sent` at once against a busy table: the first insert waits on a lock held here, so the
 * requests behind it queue in the batcher however fast or loaded the machine is (the tests assert
 * grouping, not timing).
 */
async function burstOnBusyTable(admin: Awaited<ReturnType<typeof asAcme>>, sent: object[]) {
  const knex = t.container.resolve(KNEX);
  const hold = await knex.transaction();
  await hold.raw('lock table ??.messages in exclusive mode', [acme.schema]);
  const answering = Promise.all(
    sent.map((body) =>
      admin
        .post('/api/messages')
        .send(body)
        .then((res) => res),
    ),
  );
  for (let waited = 0; waited < 5000; waited += 50) {
    const { rows } = await knex.raw('select count(*)::int as n from pg_locks where not granted and relation = ?::regclass', [`${acme.schema}.messages`]);
    if (rows[0].n > 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 300));
  await hold.commit();
  return answering;
}

describe("group commit of a superuser's messages", () => {
  it('30 POSTs at once: each answered with its own message, in fewer statements than messages', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    expect((await admin.get('/api/person')).status).toBe(200);
    const names = ['ola', 'kari', 'siri', 'nils', 'admin'];
    const before = counted();
    const sent = Array.from({ length: 30 }, (_, i) => ({
      user_name: names[i % names.length],
      title: `Burst ${i}`,
      text: `text ${i}`,
      cc: i % 3 === 0 ? 'kari@acme.example' : undefined,
    }));
    const answers = await burstOnBusyTable(admin, sent);
    const after = counted();
    answers.forEach((res, i) => {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const msg = res.body.messages[0];
      expect(msg).toMatchObject({ user_name: sent[i].user_name, title: sent[i].title, text: sent[i].text, sender_user_name: 'admin', cc: sent[i].cc ?? '' });
      expect(msg.deliveries.map((d: any) => [d.medium, d.address, d.state])).toEqual([['email', `${sent[i].user_name}@acme.example`, 'queued']]);
    });
    const ids = answers.map((res) => res.body.messages[0].message_id);
    expect(new Set(ids).size).toBe(30);
    const rows = await rowsTitled(acme, 'Burst ');
    expect(rows).toHaveLength(30);
    for (const [i, id] of ids.entries()) expect(rows.find((r: any) => r.id === id)).toMatchObject({ title: sent[i].title, user_name: sent[i].user_name });
    const deliveries = await tenantDb(t, acme).table('message_deliveries').whereIn('message_id', ids).select('message_id', 'address');
    expect(deliveries).toHaveLength(30);
    for (const d of deliveries) expect(d.address).toBe(`${rows.find((r: any) => r.id === d.message_id).user_name}@acme.example`);
    // batching happened: without it every message is a statement of its own
    expect(after.messages - before.messages).toBe(30);
    expect(after.statements - before.statements).toBeLessThan(30);
    expect(after.batches - before.batches).toBeGreaterThan(0);
    expect(after.fallbacks).toBe(before.fallbacks);
  });

  it('messages that wait go together: the first alone at once, the rest as one statement, each answered as alone', async () => {
    const db = apiDb(acme);
    const adminId = await idOf(acme, 'admin');
    const reqs = [
      request('ola', 'Mixed 0', adminId),
      request('nobody', 'Mixed 1', adminId),
      request('siri', 'Mixed 2', adminId, ['email', 'sms']), // siri has no mobile: nothing stored
      request('kari', 'Mixed 3', adminId, ['email', 'sms']),
      request('per', 'Mixed 4', adminId, ['sms']),
      request('homer', 'Mixed 5', adminId), // globex's: unknown here
      request('ola', 'Mixed 6', adminId),
    ];
    const before = counted();
    const results = await Promise.all(reqs.map((r) => batcher.insertToUserName(db, RECIPIENTS_BY_USER_NAME, r)));
    const after = counted();
    expect(after.statements - before.statements).toBe(2);
    expect(after.batches - before.batches).toBe(1);
    expect(results.map((r) => [r.person?.user_name, r.stored?.message.title])).toEqual([
      ['ola', 'Mixed 0'],
      [undefined, undefined],
      ['siri', undefined],
      ['kari', 'Mixed 3'],
      ['per', 'Mixed 4'],
      [undefined, undefined],
      ['ola', 'Mixed 6'],
    ]);
    expect(results[3].stored!.deliveries.map((d) => [d.medium, d.address])).toEqual([
      ['email', 'kari@acme.example'],
      ['sms', '+4790000011'],
    ]);
    expect(results[4].stored!.deliveries.map((d) => [d.medium, d.address])).toEqual([['sms', '+4790000014']]);
    // the batch answers as the one-message statement does, field for field (but ids and times)
    const alone = await insertOneToUserName(db, RECIPIENTS_BY_USER_NAME, request('kari', 'Mixed 3', adminId, ['email', 'sms']));
    const shape = (r: typeof alone) => ({
      person: r.person,
      message: { ...r.stored!.message, id: 0, created_at: 0 },
      deliveries: r.stored!.deliveries.map((d) => ({ ...d, id: 0, message_id: 0, updated_at: 0 })),
    });
    expect(shape(results[3])).toEqual(shape(alone));
    expect(results[3].stored!.message.created_at).toBeInstanceOf(Date);
    expect(results[3].stored!.deliveries[0].updated_at).toBeInstanceOf(Date);
    expect((await rowsTitled(acme, 'Mixed ')).map((r: any) => r.title).sort()).toEqual(['Mixed 0', 'Mixed 3', 'Mixed 3', 'Mixed 4', 'Mixed 6']);
  });

  it('mixed POSTs at once: an unknown person is the usual 404, a missing address the usual 420, the others are stored', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const before = counted();
    const sent = Array.from({ length: 24 }, (_, i) =>
      i % 4 === 1
        ? { user_name: `nobody${i}`, title: `Mix ${i}`, text: 'x' }
        : i % 4 === 2
          ? { user_name: 'siri', title: `Mix ${i}`, text: 'x', send_medium: 'both' }
          : { user_name: 'ola', title: `Mix ${i}`, text: 'x', send_medium: i % 4 === 3 ? 'both' : 'email' },
    );
    const answers = await Promise.all(sent.map((body) => admin.post('/api/messages').send(body)));
    answers.forEach((res, i) => {
      if (i % 4 === 1) expect(res.body).toEqual({ valid: false, errorcode: 404, message: expect.stringMatching(new RegExp(`person nobody${i}\\b`)) });
      else if (i % 4 === 2) expect(res.body).toMatchObject({ valid: false, errorcode: 420, message: expect.stringMatching(/siri has no mobile number/) });
      else expect(res.body.messages[0]).toMatchObject({ user_name: 'ola', title: sent[i].title, send_medium: sent[i].send_medium });
    });
    expect((await rowsTitled(acme, 'Mix ')).map((r: any) => r.title).sort()).toEqual(
      sent
        .filter((_, i) => i % 4 === 0 || i % 4 === 3)
        .map((s) => s.title)
        .sort(),
    );
    expect(counted().batches).toBeGreaterThan(before.batches);
  });

  it('two tenants at once: each message lands in its own tenant, a name of the other tenant is unknown', async () => {
    const acmeAdmin = await asAcme(t, acme.host, 'admin');
    const globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    const before = counted();
    const toAcme = Array.from({ length: 15 }, (_, i) => ({ user_name: i === 7 ? 'homer' : 'ola', title: `Both tenants acme ${i}`, text: 'x' }));
    const toGlobex = Array.from({ length: 15 }, (_, i) => ({
      user_name: i === 7 ? 'ola' : 'homer',
      title: `Both tenants globex ${i}`,
      text: 'x',
      send_medium: 'sms',
    }));
    const [a, g] = await Promise.all([
      Promise.all(toAcme.map((body) => acmeAdmin.post('/api/messages').send(body))),
      Promise.all(toGlobex.map((body) => globexAdmin.post('/api/messages').send(body))),
    ]);
    a.forEach((res, i) => {
      if (i === 7) expect(res.body).toMatchObject({ errorcode: 404, message: expect.stringMatching(/person homer/) });
      else expect(res.body.messages[0]).toMatchObject({ user_name: 'ola', title: toAcme[i].title, deliveries: [{ address: 'ola@acme.example' }] });
    });
    g.forEach((res, i) => {
      if (i === 7) expect(res.body).toMatchObject({ errorcode: 404, message: expect.stringMatching(/person ola/) });
      else expect(res.body.messages[0]).toMatchObject({ user_name: 'homer', title: toGlobex[i].title, deliveries: [{ address: '+15550000002' }] });
    });
    expect(await rowsTitled(acme, 'Both tenants globex')).toEqual([]);
    expect(await rowsTitled(globex, 'Both tenants acme')).toEqual([]);
    expect((await rowsTitled(acme, 'Both tenants acme')).every((r: any) => r.user_name === 'ola')).toBe(true);
    expect(await rowsTitled(acme, 'Both tenants acme')).toHaveLength(14);
    expect(await rowsTitled(globex, 'Both tenants globex')).toHaveLength(14);
    // and each tenant's ids are its own answers: no id answered to one tenant names a row of the other
    const acmeIds = new Set((await rowsTitled(acme, 'Both tenants acme')).map((r: any) => r.id));
    expect(a.filter((_, i) => i !== 7).every((res) => acmeIds.has(res.body.messages[0].message_id))).toBe(true);
    expect(counted().batches).toBeGreaterThan(before.batches);
  });

  it('a batch that fails is sent again one message at a time: only the bad message fails', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    // A real PostgreSQL failure of one row (the API's input guard keeps NUL and lone surrogates out,
    // so a test trigger on this test tenant's messages refuses some titles).
    await poison(acme, 'Poison', 'P0001');
    const lone = await admin.post('/api/messages').send({ user_name: 'ola', title: 'Poison alone', text: 'x' });
    expect(lone.status).toBe(500);
    const sent = Array.from({ length: 12 }, (_, i) => ({ user_name: 'ola', title: i === 5 || i === 9 ? `Poison ${i}` : `Fallback ${i}`, text: `text ${i}` }));
    const answers = await burstOnBusyTable(admin, sent);
    const after = counted();
    answers.forEach((res, i) => {
      if (i === 5 || i === 9)
        expect({ status: res.status, body: res.body }).toEqual({
          status: 500,
          body: { valid: false, errorcode: 500, message: expect.stringMatching(/^internal server error/) },
        });
      else expect(res.body.messages[0]).toMatchObject({ title: sent[i].title, text: sent[i].text });
    });
    expect((await rowsTitled(acme, 'Fallback ')).map((r: any) => r.title).sort()).toEqual(
      sent
        .filter((_, i) => i !== 5 && i !== 9)
        .map((s) => s.title)
        .sort(),
    );
    // the same through the batcher, where what goes together is certain: the first alone, then a batch
    // of 7 that fails and goes again one by one
    const adminId = await idOf(acme, 'admin');
    const reqs = Array.from({ length: 8 }, (_, i) => request('ola', i === 3 || i === 6 ? `Poison b${i}` : `Fallback b${i}`, adminId));
    const outcomes = await Promise.allSettled(reqs.map((r) => batcher.insertToUserName(apiDb(acme), RECIPIENTS_BY_USER_NAME, r)));
    const last = counted();
    expect(last.fallbacks - after.fallbacks).toBe(1);
    expect(last.statements - after.statements).toBe(1 + 1 + 7);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.stored?.message.title : (o.reason as { code: string }).code))).toEqual([
      'Fallback b0',
      'Fallback b1',
      'Fallback b2',
      'P0001',
      'Fallback b4',
      'Fallback b5',
      'P0001',
      'Fallback b7',
    ]);
    expect(await rowsTitled(acme, 'Poison')).toEqual([]);
  });

  it('a batch the database cannot serve (connection lost): every message gets the 503 it gets alone, no retry one by one', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    await poison(acme, 'Unreachable', '08006');
    const lone = await admin.post('/api/messages').send({ user_name: 'ola', title: 'Unreachable alone', text: 'x' });
    expect(lone.status).toBe(503);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => admin.post('/api/messages').send({ user_name: 'ola', title: `Unreachable ${i}`, text: 'x' })),
    );
    for (const res of answers) expect({ status: res.status, body: res.body }).toEqual({ status: 503, body: lone.body });
    // through the batcher: the first alone, then one batch of 9, whose error each of the 9 gets as it is
    const adminId = await idOf(acme, 'admin');
    const before = counted();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => batcher.insertToUserName(apiDb(acme), RECIPIENTS_BY_USER_NAME, request('ola', `Unreachable b${i}`, adminId))),
    );
    const after = counted();
    expect(outcomes.map((o) => o.status === 'rejected' && (o.reason as { code: string }).code)).toEqual(Array(10).fill('08006'));
    expect(after.statements - before.statements).toBe(2);
    expect(after.fallbacks).toBe(before.fallbacks);
  });
});

/** A trigger on the tenant's messages that refuses a title starting with `prefix` with SQLSTATE `code`. */
async function poison(tenant: DemoTenant, prefix: string, code: string): Promise<void> {
  const db = tenantDb(t, tenant);
  const fn = db.ref(`refuse_${prefix.toLowerCase()}`);
  await db.raw(`create function ${fn}() returns trigger language plpgsql as $$
    begin raise exception 'refused by the test' using errcode = '${code}'; end $$`);
  await db.raw(`create trigger refuse_${prefix.toLowerCase()} before insert on ?? for each row when (new.title like '${prefix}%') execute function ${fn}()`, [
    db.ref('messages'),
  ]);
}
