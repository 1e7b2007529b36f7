import type { Logger } from 'pino';
import type { RedisClient } from '../../platform/redis/redis-client';

/**
 * The wake-up both relays (messages and webhooks) share: the tenant's id into a platform-level set
 * of tenants with rows waiting, after the commit. A second path beside the NOTIFY the same
 * transaction sends: the relay drains the set on every pass. Best effort and bounded (300 ms):
 * while Redis is away the change still succeeds and the relay's sweep finds the rows.
 */
export async function signalPendingTenant(redis: RedisClient, setKey: string, tenantId: number, logger: Logger, missed: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.sadd(setKey, String(tenantId)),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), 300);
      }),
    ]);
  } catch (err) {
    logger.warn({ err: (err as Error).message, tenantId }, missed);
  } finally {
    clearTimeout(timer);
  }
}
