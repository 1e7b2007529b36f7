import { inject, injectable } from 'tsyringe';
import type { RedisClient } from '../../platform/redis/redis-client';
import { QUEUE_PREFIX, QUEUE_REDIS } from '../../platform/queue/job-definition';
import type { PurgedTenant, TenantPurger } from '../../platform/tenant-scope/tenant-purgers';
import { webhookTenantsKey } from './webhook-signal';

/** A deleted tenant's entry in the webhook relay's signal set (its queued jobs go with QueuedJobsPurger). */
@injectable()
export class WebhookSignalPurger implements TenantPurger {
  readonly name = 'webhook-signal';
  constructor(
    @inject(QUEUE_REDIS) private readonly redis: RedisClient,
    @inject(QUEUE_PREFIX) private readonly prefix: string,
  ) {}

  async purge(tenant: PurgedTenant): Promise<string> {
    const n = await this.redis.srem(webhookTenantsKey(this.prefix), String(tenant.id));
    return `${n} webhook signal`;
  }
}
