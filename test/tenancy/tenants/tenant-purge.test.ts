import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from 'bullmq';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { REDIS } from '../../../src/platform/tokens';
import { QUEUES, QUEUE_PREFIX, QUEUE_REDIS } from '../../../src/platform/queue/job-definition';
import { QueueRegistry, bullConnection } from '../../../src/platform/queue/queue-registry';
import { TenantAdminService } from '../../../src/tenancy/tenants/tenant-admin.service';
import { webhookTenantsKey } from '../../../src/messaging/webhooks/webhook-signal';
import { pendingTenantsKey } from '../../../src/messaging/outbox/outbox-signal';

let t: TestApp;
let doomed: DemoTenant;
let kept: DemoTenant;
let dataDir: string;
let prefix: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'purge-'));
  t = await createTestApp({ DATA_DIR: dataDir });
  prefix = `test-${randomBytes(4).toString('hex')}`;
  // before the first use of the queues: this file's queues are its own
  t.container.register(QUEUE_PREFIX, { useValue: prefix });
  [doomed, kept] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'acme')]);
});
afterAll(async () => {
  await t?.close();
});

const upload = async (tenant: DemoTenant) => {
  const ola = await asAcme(t, tenant.host, 'ola');
  const res = await ola.post('/api/files').field('filetitle', 'doc').attach('file', Buffer.from('bytes'), { filename: 'a.txt', contentType: 'text/plain' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

const job = (tenantId: number, messageId: number) => ({ tenantId, messageId, deliveryId: messageId, medium: 'email' as const });

/** Failed jobs of both tenants in a queue: a worker that fails every job, once. */
async function failJobs(name: string, tenants: DemoTenant[]): Promise<void> {
  const queue = t.container.resolve(QueueRegistry).get(name);
  for (const tn of tenants) await queue.add('messages.deliver', job(tn.tenantId, 900), { jobId: `t${tn.tenantId}-m900-email`, attempts: 1 });
  const worker = new Worker(
    name,
    async () => {
      throw new Error('boom');
    },
    { connection: bullConnection(t.container.resolve(QUEUE_REDIS), true), prefix },
  );
  try {
    for (let i = 0; i < 100 && (await queue.getJobCounts('failed')).failed < tenants.length; i++) await new Promise((r) => setTimeout(r, 100));
  } finally {
    await worker.close();
  }
}

describe('deleting a tenant removes what it keeps outside its schema', () => {
  it("removes its uploaded files and its jobs in every queue and state, and nothing of the other tenant's", async () => {
    await upload(doomed);
    await upload(kept);
    const queues = t.container.resolve(QueueRegistry);
    const queueNames = t.container.resolveAll(QUEUES).map((q) => q.name);
    for (const name of queueNames) await failJobs(name, [doomed, kept]);
    for (const name of queueNames) {
      const q = queues.get(name);
      for (const tn of [doomed, kept]) {
        await q.add('messages.deliver', job(tn.tenantId, 1), { jobId: `t${tn.tenantId}-m1-email` });
        await q.add('messages.deliver', job(tn.tenantId, 2), { jobId: `t${tn.tenantId}-m2-email`, delay: 3_600_000 });
        await q.add('messages.deliver', job(tn.tenantId, 3), { jobId: `t${tn.tenantId}-m3-email`, priority: 5 });
        // found by data.tenantId whatever the id
        await q.add('messages.deliver', job(tn.tenantId, 4), { jobId: `other-${tn.tenantId}-4` });
      }
      expect(await q.getJobCounts('waiting', 'delayed', 'prioritized', 'failed')).toEqual({ waiting: 4, delayed: 2, prioritized: 2, failed: 2 });
    }
    const redis = t.container.resolve(REDIS);
    await redis.sadd(pendingTenantsKey(prefix), String(doomed.tenantId), String(kept.tenantId));
    await redis.sadd(webhookTenantsKey(prefix), String(doomed.tenantId), String(kept.tenantId));

    const report = await t.container.resolve(TenantAdminService).delete(doomed.slug);
    // five jobs of the tenant in each queue
    expect(report.purged).toEqual(
      expect.arrayContaining([`queued-jobs: ${5 * queueNames.length} queued jobs`, 'files: 1 files', 'webhook-signal: 1 webhook signal']),
    );

    expect(existsSync(join(dataDir, 'files', doomed.schema))).toBe(false);
    expect(readdirSync(join(dataDir, 'files', kept.schema))).toHaveLength(1);
    for (const name of queueNames) {
      const q = queues.get(name);
      expect(await q.getJobCounts('waiting', 'delayed', 'prioritized', 'failed')).toEqual({ waiting: 2, delayed: 1, prioritized: 1, failed: 1 });
      const left = await q.getJobs(['waiting', 'delayed', 'prioritized', 'failed']);
      expect(left.every((j) => j.data.tenantId === kept.tenantId)).toBe(true);
    }
    expect(await redis.smembers(pendingTenantsKey(prefix))).toEqual([String(kept.tenantId)]);
    expect(await redis.smembers(webhookTenantsKey(prefix))).toEqual([String(kept.tenantId)]);
  });
});
