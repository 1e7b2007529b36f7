import { createHash } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { Redis } from 'ioredis';
import { REDIS, TENANT } from '../platform/tokens';
import { tenantKeyPrefix, type Tenant } from '../platform/tenancy/tenant';
import { ApiError } from '../platform/errors/api-error';

/** Fixed-window counters in Redis under the tenant's key prefix. */
@injectable()
export class RateLimiter {
  constructor(
    @inject(REDIS) private readonly redis: Redis,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  /** Counts one hit; throws 429 when more than `max` hits fell in the window. */
  async hit(bucket: string, subject: string, max: number, windowSeconds: number): Promise<void> {
    // Hashed, so identifications (e-mail, mobile) are not readable in Redis.
    const digest = createHash('sha256').update(subject).digest('hex').slice(0, 32);
    const key = `${tenantKeyPrefix(this.tenant)}ratelimit:${bucket}:${digest}`;
    let count: number;
    try {
      const r = await this.redis.multi().incr(key).expire(key, windowSeconds, 'NX').exec();
      count = Number(r?.[0]?.[1] ?? 0);
    } catch {
      throw new ApiError(503, 'temporarily unavailable; try again shortly');
    }
    if (count > max) throw new ApiError(429, 'too many requests; try again later');
  }
}
