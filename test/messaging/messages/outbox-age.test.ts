import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { tenantDb } from '../../courses/events/events-support';
import { waitFor } from './delivery-peers';
import { KNEX } from '../../../src/platform/tokens';
import { OutboxAge } from '../../../src/messaging/outbox/outbox-age';

// No workers run here: what is queued stays queued until the test moves it.
let t: TestApp;
let acme: DemoTenant;
beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => t?.close());

describe('OutboxAge (outbox_oldest_undelivered_age_seconds)', () => {
  it("probes a tenant's outbox only when it was written since the last probe", async () => {
    const db = tenantDb(t, acme);
    const ola = await db.table('persons').whereNotNull('email').orderBy('id').first('id', 'email');
    const deliveryId = await db.transaction(async (trx) => {
      const [m] = await trx
        .table('messages')
        .insert({ recipient_id: ola.id, title: 'Waiting', text: 'In the outbox.', send_medium: 'email', created_at: new Date(Date.now() - 60_000) })
        .returning('id');
      const [d] = await trx.table('message_deliveries').insert({ message_id: m.id, medium: 'email', address: ola.email }).returning('id');
      return d.id as number;
    });
    // which tenants' outboxes each scan probes (other test files write to theirs meanwhile)
    const probed: string[][] = [];
    const onQuery = (q: { sql: string; bindings?: unknown[] }) => {
      if (q.sql.includes('.message_deliveries d join')) probed.push((q.bindings ?? []).map(String));
    };
    t.container.resolve<Knex>(KNEX).on('query', onQuery);
    const age = t.container.resolve(OutboxAge);
    age.cacheMs = 0;
    const ageOfAcme = async () => (await age.read()).find((r) => r.tenant === acme.slug)?.ageSeconds;
    const probedAcme = () => probed.some((b) => b.includes(acme.schema));
    try {
      // the first scan probes everyone
      expect(await ageOfAcme()).toBeGreaterThanOrEqual(60);
      expect(probedAcme()).toBe(true);
      // the insert's write counter reaches the statistics within their flush interval (1 s; later on a
      // loaded machine): a scan after that has seen every write made so far
      await new Promise((r) => setTimeout(r, 1500));
      await ageOfAcme();
      // nothing written since: the age grows from what was found, without a probe
      probed.length = 0;
      const again = await ageOfAcme();
      expect(again).toBeGreaterThanOrEqual(60);
      expect(probedAcme()).toBe(false);
      // delivered: the write counter moves (within the statistics' flush interval) and the outbox is probed again
      await db.table('message_deliveries').where({ id: deliveryId }).update({ state: 'sent' });
      await waitFor('age 0', async () => (await ageOfAcme()) === 0);
      expect(probedAcme()).toBe(true);
    } finally {
      t.container.resolve<Knex>(KNEX).off('query', onQuery);
    }
  });
});
