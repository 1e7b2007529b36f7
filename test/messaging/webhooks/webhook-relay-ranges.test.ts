import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { tenantDb } from '../../courses/events/events-support';
import { waitFor } from '../messages/delivery-peers';
import { QUEUE_PREFIX } from '../../../src/platform/queue/job-definition';
import { QueueRegistry } from '../../../src/platform/queue/queue-registry';
import { DEFAULT_RELAY_TIMING, RELAY_TIMING } from '../../../src/messaging/outbox/relay-timing';
import { WebhookRelay, WEBHOOK_QUEUE, dueDeliveriesQuery } from '../../../src/messaging/webhooks/webhook-relay';
import type { TenantDb } from '../../../src/platform/tenant-scope/tenant-db';

// The webhook relay alone (no workers), 50 deliveries per pass, over a receiver that is down:
// thousands of deliveries relayed and waiting for their retry, one whose job was lost, new ones.
const BATCH = 50;
const WAITING = 3000;
const NEW = 120;
let t: TestApp;
let acme: DemoTenant;
let other: DemoTenant;
let relay: WebhookRelay;
beforeAll(async () => {
  t = await createTestApp();
  [acme, other] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'acme')]);
  t.container.register(QUEUE_PREFIX, { useValue: `test-${randomBytes(4).toString('hex')}` });
  t.container.register(RELAY_TIMING, { useValue: { ...DEFAULT_RELAY_TIMING, perTenantBatch: BATCH, onlyTenants: [acme.tenantId, other.tenantId] } });
  relay = t.container.resolve(WebhookRelay);
});
afterAll(async () => {
  await t.container.resolve(QueueRegistry).close();
  await t?.close();
});

/** `n` events of one endpoint, each with one delivery written with `columns` (SQL expressions); their delivery ids in order. */
async function deliveries(db: TenantDb, endpointId: number, n: number, columns: Record<string, string> = {}): Promise<number[]> {
  const names = Object.keys(columns);
  const { rows } = await db.raw(
    `with e as (insert into ?? (uid, type, body)
                select 'msg_' || md5(random()::text || g), 'person.updated', '{}' from generate_series(1, ?) g returning id)
     insert into ?? (event_id, endpoint_id${names.map((c) => `, ${c}`).join('')})
     select id, ?${names.map((c) => `, ${columns[c]}`).join('')} from e order by id returning id`,
    [db.ref('webhook_events'), n, db.ref('webhook_deliveries'), endpointId],
  );
  return rows.map((r: { id: string }) => Number(r.id)).sort((a: number, b: number) => a - b);
}

const relayedSince = (db: TenantDb, since: Date): Promise<number[]> =>
  db
    .table('webhook_deliveries')
    .where('relayed_at', '>=', since)
    .orderBy('id')
    .pluck('id')
    .then((ids) => ids.map(Number));

it('a pass takes the lost retry behind thousands of waiting ones and the oldest new deliveries, in id order; the waiting ones stay', async () => {
  const db = tenantDb(t, acme);
  const [ep] = await db
    .table('webhook_endpoints')
    .insert({ url: 'http://127.0.0.1:9/down', events: ['person.updated'], secret: 'whsec_x' })
    .returning('id');
  const waitingColumns = {
    attempts: '3',
    relayed_at: "now() - interval '5 minutes'",
    next_attempt_at: "now() + interval '10 minutes'",
    last_error: "'connect ECONNREFUSED'",
  };
  const waiting = await deliveries(db, ep.id, WAITING, waitingColumns);
  // relayed two hours ago, its retry an hour overdue (OUTBOX_REDELIVER_AFTER_SECONDS: 5 minutes): its job was lost
  const [lost] = await deliveries(db, ep.id, 1, { ...waitingColumns, relayed_at: "now() - interval '2 hours'", next_attempt_at: "now() - interval '1 hour'" });
  const fresh = await deliveries(db, ep.id, NEW);
  // the other tenant, same ids: none of it moves with acme's pass and the other way round
  const otherDb = tenantDb(t, other);
  const [otherEp] = await otherDb
    .table('webhook_endpoints')
    .insert({ url: 'http://127.0.0.1:9/other', events: ['person.updated'], secret: 'whsec_y' })
    .returning('id');
  const otherFresh = await deliveries(otherDb, otherEp.id, 3);
  await db.raw('analyze ??', [db.ref('webhook_deliveries')]);

  // the statement of a pass reads the rows it takes (two index ranges with their limit), not the waiting ones
  const { sql, bindings } = dueDeliveriesQuery(db, t.env.OUTBOX_REDELIVER_AFTER_SECONDS, BATCH + 1).toSQL();
  const { rows: explained } = await db.raw(`explain (analyze, format json) ${sql}`, bindings);
  const scans = planNodes(explained[0]['QUERY PLAN'][0].Plan).filter((n) => n['Relation Name'] === 'webhook_deliveries');
  expect(scans.map((n) => n['Node Type'])).not.toContain('Seq Scan');
  const read = scans.reduce((sum, n) => sum + n['Actual Rows'] * (n['Actual Loops'] ?? 1) + (n['Rows Removed by Filter'] ?? 0), 0);
  expect(read).toBeLessThanOrEqual(2 * (BATCH + 1) + 1);

  const start = new Date(Date.now() - 1000);
  await relay.start();
  try {
    await waitFor(
      'the new deliveries relayed',
      async () => (await relayedSince(db, start)).length === NEW + 1 && (await relayedSince(otherDb, start)).length === 3,
    );
  } finally {
    await relay.stop();
  }
  // each pass marks its rows with its own relayed_at: the passes, in order
  const passes = await db
    .table('webhook_deliveries')
    .where('relayed_at', '>=', start)
    .select(db.builder.raw('array_agg(id order by id) as ids'))
    .groupBy('relayed_at')
    .orderBy('relayed_at')
    .then((rows) => rows.map((r: { ids: string[] }) => r.ids.map(Number)));
  // the first: the lost delivery behind the waiting ones and the 49 oldest new ones; then on in id order
  expect(passes).toEqual([[lost, ...fresh.slice(0, BATCH - 1)], fresh.slice(BATCH - 1, 2 * BATCH - 1), fresh.slice(2 * BATCH - 1)]);
  const queue = t.container.resolve(QueueRegistry).get(WEBHOOK_QUEUE.name);
  const jobs = async (tenantId: number) =>
    (await queue.getJobs(['waiting', 'prioritized'], 0, 1000))
      .filter((j) => j.data.tenantId === tenantId)
      .map((j) => j.data.deliveryId)
      .sort((a, b) => a - b);
  expect(await jobs(acme.tenantId)).toEqual([lost, ...fresh]);
  // the deliveries waiting for their retry were never touched
  const untouched = await db
    .table('webhook_deliveries')
    .whereIn('id', waiting)
    .where('relayed_at', '<', start)
    .where('next_attempt_at', '>', new Date())
    .count();
  expect(Number(untouched[0].count)).toBe(WAITING);
  // the other tenant (same ids) had its own deliveries relayed, as its own jobs
  expect(await relayedSince(otherDb, start)).toEqual(otherFresh);
  expect(await jobs(other.tenantId)).toEqual(otherFresh);
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}
