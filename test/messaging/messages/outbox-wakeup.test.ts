import { beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import pino from 'pino';
import { useMailTestbed, waitFor } from './delivery-peers';
import { importDemoTenant, type DemoTenant } from '../../support/test-app';
import { tenantDb } from '../../courses/events/events-support';
import { KNEX } from '../../../src/platform/tokens';
import { TenantStore } from '../../../src/platform/tenant-scope/tenant-store';
import { CLUSTERS } from '../../../src/platform/clusters/clusters';
import { tenantsWithPending } from '../../../src/messaging/outbox/pending-scan';
import { RelayAgenda } from '../../../src/messaging/outbox/relay-agenda';
import { MESSAGE_OUTBOX } from '../../../src/messaging/outbox/outbox-relay';
import type { TenantDb } from '../../../src/platform/tenant-scope/tenant-db';

// The relay with its default timing: the safety sweep only every hour, in-flight tenants every 2 minutes.
const bed = useMailTestbed();
const HOUR = 3_600_000;

async function writeMessageBySql(db: TenantDb, title: string): Promise<number> {
  const ola = await db.table('persons').whereNotNull('email').orderBy('id').first('id', 'email');
  return db.transaction(async (trx) => {
    const [m] = await trx.table('messages').insert({ recipient_id: ola.id, title, text: 'Written by SQL.', send_medium: 'email' }).returning('id');
    await trx.table('message_deliveries').insert({ message_id: m.id, medium: 'email', address: ola.email });
    return m.id as number;
  });
}

describe('the outbox wakes the relay', () => {
  it('a delivery written by plain SQL (no API, no Redis signal) is relayed by its NOTIFY, long before any sweep', async () => {
    const db = tenantDb(bed.t, bed.acme);
    const started = Date.now();
    await writeMessageBySql(db, 'Woken by NOTIFY');
    await waitFor('the mail', () => bed.smtp.mails.find((m) => m.headers.subject === 'Woken by NOTIFY'), 20_000);
    expect(Date.now() - started).toBeLessThan(120_000);
  });

  it('a delivery set back to queued by hand wakes the relay too', async () => {
    const db = tenantDb(bed.t, bed.acme);
    const messageId = await writeMessageBySql(db, 'Back to queued');
    await waitFor('first copy', () => bed.smtp.mails.find((m) => m.headers.subject === 'Back to queued'));
    await waitFor('sent', async () => (await db.table('message_deliveries').where({ message_id: messageId }).first()).state === 'sent');
    // as after a Redis flush: relayed long ago, still queued (test/messages/redelivery.test.ts waits for a
    // reconciliation pass; here the default pass is 2 minutes away, so only the notification can do it)
    await db
      .table('message_deliveries')
      .where({ message_id: messageId })
      .update({ state: 'queued', relayed_at: db.raw("now() - interval '1 hour'") });
    await waitFor('second copy', () => bed.smtp.mails.filter((m) => m.headers.subject === 'Back to queued').length === 2, 20_000);
  });
});

describe('tenantsWithPending (the safety sweep)', () => {
  it('names exactly the tenants with a delivery queued or sending; unknown schemas are skipped', async () => {
    const knex = bed.t.container.resolve<Knex>(KNEX);
    const globex = await importDemoTenant(bed.t, 'globex');
    const acmeDb = tenantDb(bed.t, bed.acme);
    await waitFor('acme at rest', async () => !(await acmeDb.table('message_deliveries').whereIn('state', ['queued', 'sending']).first()));
    const tenants = [
      { id: bed.acme.tenantId, schema: bed.acme.schema },
      { id: globex.tenantId, schema: globex.schema },
      { id: -1, schema: 'tenant_not_there' },
    ];
    expect(await tenantsWithPending(knex, tenants, MESSAGE_OUTBOX)).toEqual([]);
    // globex is not served by this file's relay, so its row stays queued
    const globexDb = tenantDb(bed.t, globex);
    await writeMessageBySql(globexDb, 'Pending at globex');
    expect(await tenantsWithPending(knex, tenants, MESSAGE_OUTBOX)).toEqual([globex.tenantId]);
  });
});

describe('RelayAgenda', () => {
  // A tenant no relay serves, so what is queued there stays queued.
  let other: DemoTenant;
  beforeAll(async () => {
    other = await importDemoTenant(bed.t, 'acme');
  });
  const agenda = () => {
    const c = bed.t.container;
    return new RelayAgenda(c.resolve(TenantStore), c.resolve(CLUSTERS), pino({ level: 'silent' }), {
      pollMs: 100,
      sweepMs: HOUR,
      reconcileMs: 300,
      serves: (id) => id === other.tenantId,
      name: 'outbox relay',
      sweep: (knex, list) => tenantsWithPending(knex, list, MESSAGE_OUTBOX),
    });
  };

  it('at rest the next look is the hourly sweep; a tenant in flight is looked at every reconcileMs until nothing is in flight', async () => {
    const a = agenda();
    expect([...(await a.due())]).toEqual([]); // the first pass sweeps: nothing in flight
    expect(a.sleepMs()).toBeGreaterThan(HOUR - 60_000);
    expect([...(await a.due())]).toEqual([]);
    a.looked(other.tenantId, { leftOver: false, inFlight: true });
    expect(a.sleepMs()).toBeLessThanOrEqual(300);
    await new Promise((r) => setTimeout(r, 350));
    expect([...(await a.due())]).toEqual([other.tenantId]);
    a.looked(other.tenantId, { leftOver: false, inFlight: false });
    expect(a.sleepMs()).toBeGreaterThan(HOUR - 60_000);
  });

  it('a notification names the tenant by schema; left-overs come back after pollMs; a requested sweep finds what is in flight', async () => {
    const a = agenda();
    await a.due();
    a.notified(other.schema);
    a.notified('tenant_unknown_schema');
    expect(a.sleepMs()).toBe(100);
    expect([...(await a.due())]).toEqual([other.tenantId]);
    a.looked(other.tenantId, { leftOver: true });
    expect(a.hasLeftOvers).toBe(true);
    expect([...(await a.due())]).toEqual([other.tenantId]);
    expect(a.hasLeftOvers).toBe(false);
    // a delivery whose NOTIFY this agenda never heard of: found by the next sweep
    await writeMessageBySql(tenantDb(bed.t, other), 'Unannounced');
    expect([...(await a.due())]).toEqual([]);
    a.requestSweep();
    expect([...(await a.due())]).toEqual([other.tenantId]);
  });
});
