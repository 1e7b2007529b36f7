import { inject, injectable } from 'tsyringe';
import type { RedisClient } from '../../platform/redis/redis-client';
import type { Logger } from 'pino';
import { LOGGER } from '../../platform/tokens';
import { QUEUE_PREFIX, QUEUE_REDIS } from '../../platform/queue/job-definition';
import { signalPendingTenant } from './pending-tenant-signal';

/** Sent by the triggers of tenant migration 120_outbox_notify on commit, payload the tenant's schema. */
export const OUTBOX_PENDING_CHANNEL = 'outbox_pending';

/** Platform-level set of tenant ids that have outbox rows waiting for the relay. */
export function pendingTenantsKey(queuePrefix: string): string {
  return `platform:outbox:${queuePrefix}:pending-tenants`;
}

/**
 * Tells the relay which tenant has new outbox rows (after the commit). A second path beside the
 * NOTIFY the same transaction sends (migration 120): the relay drains this set on every pass.
 * Best effort: when Redis is away the request still succeeds.
 */
@injectable()
export class OutboxSignal {
  constructor(
    @inject(QUEUE_REDIS) private readonly redis: RedisClient,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(QUEUE_PREFIX) private readonly prefix: string,
  ) {}

  notify(tenantId: number): Promise<void> {
    return signalPendingTenant(
      this.redis,
      pendingTenantsKey(this.prefix),
      tenantId,
      this.logger,
      'outbox signal not sent; the relay sweep will pick the message up',
    );
  }
}
