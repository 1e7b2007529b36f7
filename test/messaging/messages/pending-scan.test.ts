import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { tenantDb } from '../../courses/events/events-support';
import { KNEX } from '../../../src/platform/tokens';
import { pendingProbe, tenantsWithPending } from '../../../src/messaging/outbox/pending-scan';
import { MESSAGE_OUTBOX } from '../../../src/messaging/outbox/outbox-relay';

// The relays' safety sweep (tenantsWithPending) on an outbox with a long delivered history in
// front of many pending rows: the shape in which an `exists` probe became a sequential scan.
const DELIVERED = 60_000;
const PENDING = 15_000;
let t: TestApp;
let busy: DemoTenant;
let idle: DemoTenant;
let knex: Knex;

/** `n` messages to one person, each with an e-mail delivery in `state`. */
async function deliveries(tenant: DemoTenant, n: number, state: string): Promise<void> {
  const db = tenantDb(t, tenant);
  const person = await db.table('persons').first('id');
  await db.raw(
    `with m as (insert into ?? (recipient_id, title, text, send_medium)
                select ?, 'Hello', 'Text', 'email' from generate_series(1, ?) returning id)
     insert into ?? (message_id, medium, address, state, relayed_at) select id, 'email', 'x@example.com', ?, now() from m`,
    [db.ref('messages'), person.id, n, db.ref('message_deliveries'), state],
  );
}

beforeAll(async () => {
  t = await createTestApp();
  [busy, idle] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  knex = t.container.resolve<Knex>(KNEX);
  await deliveries(busy, DELIVERED, 'sent');
  await deliveries(busy, PENDING, 'queued');
  await deliveries(idle, 2_000, 'sent');
  await knex.raw(`analyze ${busy.schema}.message_deliveries`);
  await knex.raw(`analyze ${idle.schema}.message_deliveries`);
}, 120_000);
afterAll(async () => t?.close());

const tenants = () => [
  { id: busy.tenantId, schema: busy.schema },
  { id: idle.tenantId, schema: idle.schema },
];

it('names the tenant with pending rows and not the one without', async () => {
  expect(await tenantsWithPending(knex, tenants(), MESSAGE_OUTBOX)).toEqual([busy.tenantId]);
});

it('reads each outbox through its partial index of pending rows, never the delivered history', async () => {
  const probe = pendingProbe(knex, tenants(), MESSAGE_OUTBOX).toQuery();
  const { rows } = await knex.raw(`explain (analyze, buffers, format json) ${probe}`);
  const plan = JSON.stringify(rows[0]['QUERY PLAN']);
  expect(plan).not.toContain('Seq Scan');
  expect(plan).toContain('message_deliveries_pending');
  // a few index pages per tenant, not the 75,000 rows' heap
  const buffers = (rows[0]['QUERY PLAN'][0].Plan['Shared Hit Blocks'] ?? 0) + (rows[0]['QUERY PLAN'][0].Plan['Shared Read Blocks'] ?? 0);
  expect(buffers).toBeLessThan(50);
});
