import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { startSmtpSink } from './delivery-peers';
import { deliverBatchJobId } from '../../../src/messaging/messages/delivery-jobs';
import { deliverBatchJob } from '../../../src/flows/messages/deliver-messages';
import { TemporaryDeliveryError } from '../../../src/messaging/messages/delivery-errors';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../../src/platform/tenant-scope/request-scope';
import { TENANT_DB } from '../../../src/platform/tokens';

// No workers and no relay here: the rows stay queued until a test runs the batch job itself.
let t: TestApp;
let acme: DemoTenant;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await createTestApp({ SMTP_URL: smtp.url });
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => {
  await t?.close();
  await smtp?.stop();
});

const RECIPIENTS = ['kari', 'ola', 'siri', 'nils'];

/** One message to each recipient; their delivery ids, in id order. */
async function post(title: string): Promise<number[]> {
  const admin = await asAcme(t, acme.host, 'admin');
  const ids: number[] = [];
  for (const user_name of RECIPIENTS) {
    const res = await admin.post('/api/messages').send({ user_name, title, text: 'Batch test.' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const db = await tenantDb();
  const rows = await db.table('message_deliveries as d').join('messages as m', 'm.id', 'd.message_id').where('m.title', title).orderBy('d.id').select('d.id');
  ids.push(...rows.map((r: { id: number }) => r.id));
  expect(ids).toHaveLength(RECIPIENTS.length);
  return ids;
}

async function tenantDb() {
  const tenant = (await t.container.resolve(TenantResolver).byTenantId(acme.tenantId))!;
  return openTenantScope(t.container, tenant).resolve(TENANT_DB);
}

const run = (deliveryIds: number[]) => deliverBatchJob.handle(t.container, { tenantId: acme.tenantId, deliveryIds }, { number: 1, max: 8 });
const received = (title: string) => smtp.mails.filter((m) => m.headers.subject === title);
const states = async (ids: number[]): Promise<{ address: string; state: string; attempts: number; last_error: string | null }[]> =>
  await (await tenantDb()).table('message_deliveries').whereIn('id', ids).orderBy('id').select('address', 'state', 'attempts', 'last_error');

it('one recipient refused for good (5xx) fails alone: the others are sent once each, and running the batch again sends nothing', async () => {
  const ids = await post('Batch permanent');
  smtp.refuse.set('siri@acme.example', 550);
  try {
    await run(ids);
  } finally {
    smtp.refuse.clear();
  }
  expect(
    received('Batch permanent')
      .map((m) => m.rcptTo[0])
      .sort(),
  ).toEqual(['kari@acme.example', 'nils@acme.example', 'ola@acme.example']);
  const after = await states(ids);
  expect(after.map((r) => [r.address, r.state, r.attempts])).toEqual([
    ['kari@acme.example', 'sent', 1],
    ['ola@acme.example', 'sent', 1],
    ['siri@acme.example', 'failed', 1],
    ['nils@acme.example', 'sent', 1],
  ]);
  expect(after[2].last_error).toMatch(/^SMTP 550/);
  await run(ids); // a second run of the same job (BullMQ retried it): every row is done
  expect(received('Batch permanent')).toHaveLength(3);
});

it('one recipient refused for now (4xx) is set back and retried alone, once; the job asks for the retry', async () => {
  const ids = await post('Batch temporary');
  smtp.refuse.set('ola@acme.example', 451);
  try {
    await expect(run(ids)).rejects.toBeInstanceOf(TemporaryDeliveryError);
  } finally {
    smtp.refuse.clear();
  }
  expect(
    received('Batch temporary')
      .map((m) => m.rcptTo[0])
      .sort(),
  ).toEqual(['kari@acme.example', 'nils@acme.example', 'siri@acme.example']);
  const between = await states(ids);
  expect(between.map((r) => [r.address, r.state])).toEqual([
    ['kari@acme.example', 'sent'],
    ['ola@acme.example', 'queued'],
    ['siri@acme.example', 'sent'],
    ['nils@acme.example', 'sent'],
  ]);
  expect(between[1].last_error).toMatch(/^SMTP 451/);
  await run(ids); // BullMQ's retry of the same job
  expect(
    received('Batch temporary')
      .map((m) => m.rcptTo[0])
      .sort(),
  ).toEqual(['kari@acme.example', 'nils@acme.example', 'ola@acme.example', 'siri@acme.example']);
  expect((await states(ids)).map((r) => [r.state, r.attempts])).toEqual([
    ['sent', 1],
    ['sent', 2],
    ['sent', 1],
    ['sent', 1],
  ]);
});

it('a batch cut off after sending (its worker killed) is sent again with the same Message-IDs, each one its own', async () => {
  const ids = await post('Batch redelivered');
  await run(ids);
  const first = received('Batch redelivered');
  expect(first).toHaveLength(4);
  // as a worker killed between the SMTP answers and the UPDATE leaves them: sending, long ago
  const db = await tenantDb();
  await db
    .table('message_deliveries')
    .whereIn('id', ids)
    .update({ state: 'sending', updated_at: db.raw("now() - interval '1 hour'") });
  await run(ids);
  const all = received('Batch redelivered');
  expect(all).toHaveLength(8);
  const idsOf = (mails: typeof all) =>
    Object.fromEntries(RECIPIENTS.map((u) => [u, mails.filter((m) => m.rcptTo[0] === `${u}@acme.example`).map((m) => m.headers['message-id'])]));
  const byRecipient = idsOf(all);
  for (const u of RECIPIENTS) {
    expect(byRecipient[u]).toHaveLength(2);
    expect(byRecipient[u][0]).toBe(byRecipient[u][1]);
  }
  expect(new Set(RECIPIENTS.map((u) => byRecipient[u][0])).size).toBe(RECIPIENTS.length);
  // a row another worker is sending right now (updated just now) is left alone
  await db.table('message_deliveries').where('id', ids[0]).update({ state: 'sending', updated_at: db.fn.now() });
  await run(ids);
  expect(received('Batch redelivered')).toHaveLength(8);
});

it("a batch job names one tenant: its id starts with the tenant's prefix and changes with the rows and their versions", () => {
  const at = new Date('2026-01-01T00:00:00Z');
  const later = new Date('2026-01-01T00:00:01Z');
  const rows = (ids: number[], when = at) => ids.map((id) => ({ id, updatedAt: when }));
  const a = deliverBatchJobId(7, rows([1, 2, 3]));
  expect(a).toMatch(/^t7-b1-3-/);
  expect(deliverBatchJobId(7, rows([1, 2, 3]))).toBe(a); // the relay adding it again: a no-op
  expect(deliverBatchJobId(7, rows([1, 2, 4]))).not.toBe(a);
  expect(deliverBatchJobId(7, rows([1, 2, 3], later))).not.toBe(a); // retried by an operator: a new job
  expect(deliverBatchJobId(8, rows([1, 2, 3]))).toMatch(/^t8-/);
});
