import { inject, injectable } from 'tsyringe';
import type { RedisClient } from '../../platform/redis/redis-client';
import type { Logger } from 'pino';
import { LOGGER } from '../../platform/tokens';
import { QUEUE_PREFIX, QUEUE_REDIS } from '../../platform/queue/job-definition';
import { signalPendingTenant } from '../outbox/pending-tenant-signal';

/** Sent by the triggers of tenant migration 140_webhook_notify on commit, payload the tenant's schema. */
export const WEBHOOK_PENDING_CHANNEL = 'webhook_pending';

/** Platform-level set of tenant ids with webhook deliveries waiting for the relay. */
export function webhookTenantsKey(queuePrefix: string): string {
  return `platform:webhooks:${queuePrefix}:pending-tenants`;
}

/**
 * Tells the webhook relay which tenant has new deliveries (after the commit). A second path
 * beside the NOTIFY the same transaction sends (migration 140): the relay drains this set on
 * every pass. Best effort: while Redis is away the change still succeeds.
 */
@injectable()
export class WebhookSignal {
  constructor(
    @inject(QUEUE_REDIS) private readonly redis: RedisClient,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(QUEUE_PREFIX) private readonly prefix: string,
  ) {}

  notify(tenantId: number): Promise<void> {
    return signalPendingTenant(
      this.redis,
      webhookTenantsKey(this.prefix),
      tenantId,
      this.logger,
      'webhook signal not sent; the relay sweep will pick the event up',
    );
  }
}
