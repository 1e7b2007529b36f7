import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import pino from 'pino';
import { importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { waitFor } from '../messages/delivery-peers';
import { tenantDb } from '../../courses/events/events-support';
import type { WebhookReceiver } from './webhook-receiver';
import { startWebhookTestbed, type WebhookTestbed } from './webhook-testbed';
import { KNEX } from '../../../src/platform/tokens';
import { TenantStore } from '../../../src/platform/tenant-scope/tenant-store';
import { CLUSTERS } from '../../../src/platform/clusters/clusters';
import { RelayAgenda } from '../../../src/messaging/outbox/relay-agenda';
import { tenantsWithPending } from '../../../src/messaging/outbox/pending-scan';
import { WEBHOOK_OUTBOX } from '../../../src/messaging/webhooks/webhook-relay';
import { dropOldWebhookEvents } from '../../../src/messaging/webhooks/webhook-retention';
import { writeWebhookEvent } from '../../../src/messaging/webhooks/webhook-event-writer';
import type { TenantDb } from '../../../src/platform/tenant-scope/tenant-db';

// The relays with their default timing (the safety sweep only every hour), but tenants with
// deliveries in flight looked at every 500 ms, so the reconciliation can be seen at work.
const HOUR = 3_600_000;
let bed: WebhookTestbed | undefined;
let t: TestApp;
let acme: DemoTenant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  bed = await startWebhookTestbed({ reconcileMs: 500 });
  ({ t, acme, receiver } = bed);
});
afterAll(async () => bed?.stop());

/** The rows an event written by plain SQL would have: no API, no Redis signal. */
function writeBySql(db: TenantDb, slug: string, endpointId: number, user: string) {
  return db.transaction((trx) => writeWebhookEvent(trx, { slug }, 'person.updated', { user_name: user }, [endpointId]));
}

describe('the webhook outbox wakes the relay', () => {
  it('a delivery written by plain SQL (no Redis signal) is relayed by its NOTIFY, long before any sweep', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const db = tenantDb(t, acme);
    // nothing in flight: only a notification (or the sweep, an hour away) makes the relay look at acme
    expect(await db.table('webhook_deliveries').whereIn('state', ['pending', 'sending']).first()).toBeUndefined();
    const w = await bed!.createEndpoint(admin, '/ok/woken', ['person.updated']);
    const { uid } = await writeBySql(db, acme.slug, w.webhook_id, 'ola');
    const got = await waitFor('the webhook', () => receiver.at('/ok/woken').find((r) => r.id === uid), 20_000);
    expect(got).toMatchObject({ status: 200, verifiedWith: ['current'] });
  });

  it('a tenant with deliveries in flight is reconciled: a delivery whose job is lost and whose NOTIFY never came is relayed again', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const db = tenantDb(t, acme);
    // a receiver that keeps failing keeps acme in flight (a delivery pending, retried)
    const failing = await bed!.createEndpoint(admin, '/fail/keeps-failing', ['person.updated']);
    await writeBySql(db, acme.slug, failing.webhook_id, 'kari');
    await waitFor('a failed attempt', () => receiver.at('/fail/keeps-failing').length > 0);
    // as if relayed an hour ago and its job then vanished from Redis; written with triggers off,
    // so no notification either: only the look at in-flight tenants can find it
    const w = await bed!.createEndpoint(admin, '/ok/reconciled', ['person.updated']);
    const past = new Date(Date.now() - HOUR);
    const { uid } = await db.transaction(async (trx) => {
      await trx.raw('set local session_replication_role = replica');
      const written = await writeWebhookEvent(trx, { slug: acme.slug }, 'person.updated', { user_name: 'nils' }, [w.webhook_id]);
      await trx.table('webhook_deliveries').where({ event_id: written.eventId }).update({ relayed_at: past, next_attempt_at: past });
      return written;
    });
    const got = await waitFor('relayed again', () => receiver.at('/ok/reconciled').find((r) => r.id === uid), 20_000);
    expect(got).toMatchObject({ status: 200, verifiedWith: ['current'] });
    await admin.delete(`/api/webhooks/${failing.webhook_id}`);
  });
});

describe('the webhook relay at rest', () => {
  // A tenant no relay serves, so what is pending there stays pending.
  let quiet: DemoTenant;
  beforeAll(async () => {
    quiet = await importDemoTenant(t, 'acme');
  });
  const agenda = () =>
    new RelayAgenda(t.container.resolve(TenantStore), t.container.resolve(CLUSTERS), pino({ level: 'silent' }), {
      name: 'webhook relay',
      pollMs: 100,
      sweepMs: HOUR,
      reconcileMs: 300,
      serves: (id) => id === quiet.tenantId,
      sweep: (knex, list) => tenantsWithPending(knex, list, WEBHOOK_OUTBOX),
    });

  it('the next look is the hourly sweep; the sweep names a tenant with a delivery pending, which is then looked at every reconcileMs', async () => {
    const a = agenda();
    expect([...(await a.due())]).toEqual([]); // the first pass sweeps: nothing pending
    expect(a.sleepMs()).toBeGreaterThan(HOUR - 60_000);
    const db = tenantDb(t, quiet);
    const [endpoint] = await db
      .table('webhook_endpoints')
      .insert({ url: 'https://hooks.example.com/x', events: ['person.updated'], secret: 'whsec_x' })
      .returning('id');
    await writeBySql(db, quiet.slug, endpoint.id, 'ola');
    expect([...(await a.due())]).toEqual([]); // no notification reached this agenda; the sweep is an hour away
    a.requestSweep();
    expect([...(await a.due())]).toEqual([quiet.tenantId]);
    a.looked(quiet.tenantId, { leftOver: false, inFlight: true });
    expect(a.sleepMs()).toBeLessThanOrEqual(300);
    await new Promise((r) => setTimeout(r, 350));
    expect([...(await a.due())]).toEqual([quiet.tenantId]);
    a.looked(quiet.tenantId, { leftOver: false, inFlight: false });
    expect(a.sleepMs()).toBeGreaterThan(HOUR - 60_000);
  });

  it('the sweep drops events older than keepMs with their deliveries, in one statement per 200 tenants', async () => {
    const knex = t.container.resolve<Knex>(KNEX);
    const db = tenantDb(t, quiet);
    const endpoint = await db.table('webhook_endpoints').first('id');
    const old = await writeBySql(db, quiet.slug, endpoint.id, 'kari');
    const recent = await writeBySql(db, quiet.slug, endpoint.id, 'nils');
    await db
      .table('webhook_events')
      .where({ id: old.eventId })
      .update({ created_at: new Date(Date.now() - 31 * 24 * HOUR) });
    const tenants = [
      { id: quiet.tenantId, schema: quiet.schema },
      { id: -1, schema: 'tenant_not_there' },
    ];
    expect(await dropOldWebhookEvents(knex, tenants, new Date(Date.now() - 30 * 24 * HOUR))).toBe(1);
    expect(await db.table('webhook_events').whereIn('id', [old.eventId, recent.eventId]).pluck('id')).toEqual([String(recent.eventId)]);
    expect(await db.table('webhook_deliveries').where({ event_id: old.eventId }).first()).toBeUndefined();
    expect(await dropOldWebhookEvents(knex, tenants, new Date(Date.now() - 30 * 24 * HOUR))).toBe(0);
  });
});
