import { inject, injectable } from 'tsyringe';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { REDIS, TENANT } from '../platform/tokens';
import { tenantKeyPrefix, type Tenant } from '../platform/tenancy/tenant';
import type { Principal } from '../platform/auth/principal';
import { ApiError } from '../platform/errors/api-error';

const WINDOW_SECONDS = 3600;

/**
 * messages.max_per_hour_per_sender: a fixed one-hour window per sender that starts with
 * their first message. Superusers are not counted (they run announcements for the tenant).
 */
@injectable()
export class SenderRateLimit {
  constructor(
    @inject(REDIS) private readonly redis: Redis,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  async consume(user: Principal): Promise<void> {
    if (user.superuser) return;
    // Built per call: the limit is a config item and may change between requests; the object holds no state.
    const limiter = new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix: `${tenantKeyPrefix(this.tenant)}ratelimit:messages-per-sender`,
      points: this.tenant.config.get('messages.max_per_hour_per_sender'),
      duration: WINDOW_SECONDS,
      rejectIfRedisNotReady: true,
    });
    try {
      await limiter.consume(String(user.personId));
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        throw new ApiError(429, `too many messages: at most ${limiter.points} per hour; try again in ${seconds} seconds`, {}, { 'Retry-After': String(seconds) });
      }
      throw new ApiError(503, 'temporarily unavailable; try again shortly', {}, { 'Retry-After': '5' });
    }
  }
}
