import { expect, it } from 'vitest';
import { asAcme } from '../../support/login';
import { useMailTestbed, waitFor } from './delivery-peers';
import { QueueRegistry } from '../../../src/platform/queue/queue-registry';

// Batches far smaller than the burst: the backlog must move over many passes.
const bed = useMailTestbed({ perTenantBatch: 4, maxQueueDepth: 1_000 });

it('a burst larger than the relay batch is delivered whole, each mail exactly once; the POST answer is what GET shows', async () => {
  const admin = await asAcme(bed.t, bed.acme.host, 'admin');
  const titles = Array.from({ length: 30 }, (_, i) => `Burst ${i}`);
  const posted = await Promise.all(titles.map((title) => admin.post('/api/messages').send({ user_name: 'ola', title, text: 'Part of a burst.' })));
  for (const res of posted) expect(res.status, JSON.stringify(res.body)).toBe(200);

  const first = posted[0].body.messages[0];
  const fetched = await admin.get(`/api/messages/${first.message_id}`);
  // deliveries change state as they are sent; the rest of the message must match exactly
  const { deliveries: postedDeliveries, ...postedRest } = first;
  const { deliveries: fetchedDeliveries, ...fetchedRest } = fetched.body.messages[0];
  expect(postedRest).toEqual(fetchedRest);
  expect(postedDeliveries.map((d: any) => [d.medium, d.address, d.state, d.attempts])).toEqual([['email', 'ola@acme.example', 'queued', 0]]);
  expect(fetchedDeliveries.map((d: any) => [d.medium, d.address])).toEqual([['email', 'ola@acme.example']]);

  const burst = () => bed.smtp.mails.filter((m) => titles.includes(m.headers.subject));
  await waitFor('all 30 mails', () => burst().length >= titles.length);
  await new Promise((r) => setTimeout(r, 500)); // a duplicate would arrive in this time
  expect(
    burst()
      .map((m) => m.headers.subject)
      .sort(),
  ).toEqual([...titles].sort());

  const states = await admin.get('/api/messages?user_name=ola&limit=100');
  const ours = states.body.messages.filter((m: any) => titles.includes(m.title));
  expect(ours).toHaveLength(30);
  for (const m of ours) expect(m.deliveries.map((d: any) => [d.state, d.attempts])).toEqual([['sent', 1]]);

  // they went in batch jobs of the tenant (at most perTenantBatch rows each), every row in exactly one
  const jobs = (await bed.t.container.resolve(QueueRegistry).get('messages').getJobs(['completed'], 0, 1000)).filter(
    (j) => j.name === 'messages.deliver-batch',
  );
  const rows = jobs.flatMap((j) => j.data.deliveryIds as number[]);
  expect(rows).toHaveLength(30);
  expect(new Set(rows).size).toBe(30);
  expect(Math.max(...jobs.map((j) => j.data.deliveryIds.length))).toBeGreaterThan(1);
  expect(Math.max(...jobs.map((j) => j.data.deliveryIds.length))).toBeLessThanOrEqual(4);
  for (const j of jobs) expect([j.id?.startsWith(`t${bed.acme.tenantId}-b`), j.data.tenantId]).toEqual([true, bed.acme.tenantId]);
});
