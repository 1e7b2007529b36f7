import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { tenantDb } from '../../courses/events/events-support';
import { QUEUE_PREFIX } from '../../../src/platform/queue/job-definition';
import { QueueRegistry } from '../../../src/platform/queue/queue-registry';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../../src/platform/tenant-scope/request-scope';
import { DEFAULT_RELAY_TIMING, RELAY_TIMING } from '../../../src/messaging/outbox/relay-timing';
import { OutboxRelays } from '../../../src/messaging/outbox/outbox-relay';
import { recordMessageFailed } from '../../../src/flows/messages/message-failed';
import { MessagesRepository } from '../../../src/messaging/messages/messages.repository';
import { waitFor } from './delivery-peers';

// The relay alone (no delivery workers), its queue room one batch: what it takes from a backlog larger than that.
let t: TestApp;
let acme: DemoTenant;
beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  t.container.register(QUEUE_PREFIX, { useValue: `test-${randomBytes(4).toString('hex')}` });
  t.container.register(RELAY_TIMING, { useValue: { ...DEFAULT_RELAY_TIMING, perTenantBatch: 50, maxQueueDepth: 50, onlyTenants: [acme.tenantId] } });
});
afterAll(async () => {
  await t.container.resolve(QueueRegistry).close();
  await t?.close();
});

it('password mail written behind a backlog larger than the batch goes in the first pass, to the priority queue; bulk in id order', async () => {
  const db = tenantDb(t, acme);
  const ola = await db.table('persons').whereNotNull('email').orderBy('id').first('id', 'email');
  const repo = openTenantScope(t.container, (await t.container.resolve(TenantResolver).byTenantId(acme.tenantId))!).resolve(MessagesRepository);
  const message = (kind: 'message' | 'password', title: string) =>
    repo.insert({
      kind,
      sender_id: null,
      recipient_id: ola.id,
      title,
      text: 'x',
      cc: [],
      reply_to: null,
      send_medium: 'email',
      deliveries: [{ medium: 'email', address: ola.email }],
    });
  const bulk = [];
  for (let i = 0; i < 120; i++) bulk.push((await message('message', `Bulk ${i}`)).deliveries[0].id);
  const password = (await message('password', 'Your new password')).deliveries[0].id;
  expect(
    await db
      .table('message_deliveries')
      .whereIn('id', [...bulk, password])
      .pluck('priority'),
  ).toEqual([...bulk.map(() => 0), 1]);

  const relay = t.container.resolve(OutboxRelays).create(recordMessageFailed);
  await relay.start();
  try {
    await waitFor('the first pass', async () => Number((await db.table('message_deliveries').whereNotNull('relayed_at').count())[0].count) >= 51);
  } finally {
    await relay.stop();
  }
  const relayed: number[] = await db
    .table('message_deliveries')
    .whereNotNull('relayed_at')
    .whereIn('id', [...bulk, password])
    .orderBy('id')
    .pluck('id');
  expect(relayed).toEqual([...bulk.slice(0, 50), password]);
  const queues = t.container.resolve(QueueRegistry);
  const priorityJobs = await queues.get('mail-priority').getJobs(['waiting', 'prioritized'], 0, 100);
  expect(priorityJobs.flatMap((j) => j.data.deliveryIds)).toEqual([password]);
  const bulkJobs = await queues.get('messages').getJobs(['waiting', 'prioritized'], 0, 100);
  expect(bulkJobs.flatMap((j) => j.data.deliveryIds).sort((a: number, b: number) => a - b)).toEqual(bulk.slice(0, 50));
  // the messages' API answer does not show the relay's column
  const shown = await repo.deliveriesOf([bulk[0]]);
  expect(Object.keys(shown[0])).not.toContain('priority');
});
