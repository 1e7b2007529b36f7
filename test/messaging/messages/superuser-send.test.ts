import { tenantStatements } from '../../support/statements';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { tenantDb } from '../../courses/events/events-support';

// No workers: what is stored stays in the outbox, which is all these tests look at.
let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  globex = await importDemoTenant(t, 'globex');
});
afterAll(async () => t?.close());

/** The statements of `schema` that `fn` runs against persons, messages and the outbox. */
async function statementsOf(schema: string, fn: () => Promise<void>): Promise<string[]> {
  const all = await tenantStatements(t, acme.tenantId, fn);
  return all.filter((sql) => sql.includes(`"${schema}".`) && /"(persons|messages|message_deliveries)"/.test(sql));
}

const countMessages = async (tenant: DemoTenant, title: string) =>
  Number((await tenantDb(t, tenant).table('messages').where({ title }).count({ n: '*' }))[0].n);

describe("a superuser's POST /api/messages (recipient lookup and insert in one statement)", () => {
  it('finds the recipient and stores the message and its deliveries in one statement', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    // the login dropped the cached account: read it again first, so only the message's statements are counted
    expect((await admin.get('/api/person')).status).toBe(200);
    let res: any;
    const sql = await statementsOf(acme.schema, async () => {
      res = await admin.post('/api/messages').send({ user_name: 'ola', title: 'One statement', text: 'x', send_medium: 'both', cc: 'kari@acme.example' });
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(sql, sql.join('\n')).toHaveLength(1);
    const msg = res.body.messages[0];
    expect(msg).toMatchObject({ user_name: 'ola', title: 'One statement', cc: 'kari@acme.example', send_medium: 'both', sender_user_name: 'admin' });
    expect(msg.deliveries.map((d: any) => [d.medium, d.address, d.state])).toEqual([
      ['email', 'ola@acme.example', 'queued'],
      ['sms', '+4790000012', 'queued'],
    ]);
    const ola = await tenantDb(t, acme).table('persons').where({ user_name: 'ola' }).first('id');
    const stored = await tenantDb(t, acme).table('messages').where({ id: msg.message_id }).first();
    expect(stored).toMatchObject({ recipient_id: ola.id, title: 'One statement' });
  });

  it('an unknown user name is a 404 and writes nothing; a person of another tenant is unknown here', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const res = await admin.post('/api/messages').send({ user_name: 'nobody', title: 'To nobody', text: 'x' });
    expect(res.body).toMatchObject({ valid: false, errorcode: 404, message: expect.stringMatching(/person nobody/) });
    expect(await countMessages(acme, 'To nobody')).toBe(0);
    // homer is globex's only: acme's superuser cannot reach him
    const other = await admin.post('/api/messages').send({ user_name: 'homer', title: 'Across tenants', text: 'x' });
    expect(other.body).toMatchObject({ errorcode: 404, message: expect.stringMatching(/person homer/) });
    expect(await countMessages(acme, 'Across tenants')).toBe(0);
    expect(await countMessages(globex, 'Across tenants')).toBe(0);
  });

  it('answers as before when the input is in error or the recipient lacks an address: 404 first, then the 420s, nothing written', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    // an unknown person with a bad cc is still a 404 (the person rule comes first)
    expect((await admin.post('/api/messages').send({ user_name: 'nobody', title: 'Bad', text: 'x', cc: 'not-an-address' })).body.errorcode).toBe(404);
    // siri has no mobile: both media is a 420 and not even the e-mail delivery is stored
    const both = await admin.post('/api/messages').send({ user_name: 'siri', title: 'No mobile', text: 'x', send_medium: 'both' });
    expect(both.body).toMatchObject({ errorcode: 420, message: expect.stringMatching(/siri has no mobile number/) });
    expect(await countMessages(acme, 'No mobile')).toBe(0);
  });
});
