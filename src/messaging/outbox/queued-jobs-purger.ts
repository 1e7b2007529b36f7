import { inject, injectable } from 'tsyringe';
import type { RedisClient } from '../../platform/redis/redis-client';
import type { JobType } from 'bullmq';
import { QueueRegistry } from '../../platform/queue/queue-registry';
import { QUEUE_PREFIX, QUEUE_REDIS } from '../../platform/queue/job-definition';
import type { PurgedTenant, TenantPurger } from '../../platform/tenant-scope/tenant-purgers';
import { pendingTenantsKey } from './outbox-signal';

/** Every state a job can rest in; active jobs are locked by a worker and fail on their own (tenant gone). */
const STATES: JobType[] = ['waiting', 'prioritized', 'delayed', 'waiting-children', 'failed', 'completed'];
const PAGE = 1000;

/**
 * A deleted tenant's jobs in every queue (QueueRegistry.all(), so a queue added later is
 * covered too), found by data.tenantId or the job id prefix t<id>-, plus its outbox signal.
 */
@injectable()
export class QueuedJobsPurger implements TenantPurger {
  readonly name = 'queued-jobs';
  constructor(
    @inject(QueueRegistry) private readonly queues: QueueRegistry,
    @inject(QUEUE_REDIS) private readonly redis: RedisClient,
    @inject(QUEUE_PREFIX) private readonly prefix: string,
  ) {}

  async purge(tenant: PurgedTenant): Promise<string> {
    await this.redis.srem(pendingTenantsKey(this.prefix), String(tenant.id));
    const ours = (job: { id?: string; data?: { tenantId?: unknown } }) => job.data?.tenantId === tenant.id || !!job.id?.startsWith(`t${tenant.id}-`);
    let removed = 0;
    for (const queue of this.queues.all()) {
      // collect first: removing while paging would shift the pages
      const ids: string[] = [];
      for (let start = 0; ; start += PAGE) {
        const jobs = await queue.getJobs(STATES, start, start + PAGE - 1, true);
        for (const job of jobs) if (job && ours(job) && job.id) ids.push(job.id);
        if (jobs.length < PAGE) break;
      }
      for (const id of ids) removed += await queue.remove(id);
    }
    return `${removed} queued jobs`;
  }
}
