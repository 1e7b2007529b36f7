import { createHash } from 'node:crypto';
import { inject, injectable, singleton } from 'tsyringe';
import type { RedisClient } from '../redis/redis-client';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { REDIS, TENANT } from '../tokens';
import type { Tenant } from '../tenant-scope/tenant';
import { tenantKeyPrefix } from '../redis/redis-keys';
import { ApiError } from '../errors/api-error';

/** A fixed window: at most `points` counted hits per `durationSeconds`, from the first hit on. */
export interface RateLimitRule {
  /** Part of the Redis key: never change it for a rule in use. */
  name: string;
  points: number;
  durationSeconds: number;
  /** The 429 message. */
  message: string;
}

/**
 * One RateLimiterRedis per rule for the process: its constructor registers a Lua script on
 * the client, which must not happen per request. Keys are complete (no library prefix), so
 * the tenant prefix comes first and tenant deletion purges them.
 */
@singleton()
export class RateLimiterPool {
  // Bounded by the rules in code times the distinct config values seen; small.
  private readonly limiters = new Map<string, RateLimiterRedis>();

  constructor(@inject(REDIS) readonly redis: RedisClient) {}

  limiter(rule: RateLimitRule): RateLimiterRedis {
    // Limits that come from config items may change: a new size is a new limiter over the same keys.
    const id = `${rule.name}:${rule.points}:${rule.durationSeconds}`;
    let l = this.limiters.get(id);
    if (!l) {
      // rejectIfRedisNotReady: Redis down answers 503 at once instead of waiting in the offline queue.
      l = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: '', points: rule.points, duration: rule.durationSeconds, rejectIfRedisNotReady: true });
      this.limiters.set(id, l);
    }
    return l;
  }
}

/** Library errors are Redis trouble; a RateLimiterRes rejection is the limit. */
function translate(err: unknown, rule: RateLimitRule): never {
  if (err instanceof RateLimiterRes) throw ApiError.tooMany(rule.message, err.msBeforeNext);
  if (err instanceof ApiError) throw err;
  throw ApiError.unavailable();
}

/** Rate limits of the request's tenant (rate-limiter-flexible on Redis). */
@injectable()
export class TenantRateLimiter {
  constructor(
    @inject(RateLimiterPool) private readonly pool: RateLimiterPool,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  /** Hashed, so user names, e-mail addresses and mobiles are not readable in Redis. */
  key(rule: RateLimitRule, subject: string): string {
    const digest = createHash('sha256').update(subject).digest('hex').slice(0, 32);
    return `${tenantKeyPrefix(this.tenant, this.pool.redis)}rl:${rule.name}:${digest}`;
  }

  /** Runs one library call on the subject's key, translating its failures. */
  private async run<T>(rule: RateLimitRule, subject: string, call: (l: RateLimiterRedis, key: string) => Promise<T>): Promise<T> {
    try {
      return await call(this.pool.limiter(rule), this.key(rule, subject));
    } catch (err) {
      return translate(err, rule);
    }
  }

  /** Counts one hit; 429 with Retry-After once more than `points` hits fell in the window. */
  async hit(rule: RateLimitRule, subject: string): Promise<void> {
    await this.run(rule, subject, (l, key) => l.consume(key));
  }

  /** 429 while the window holds `points` hits already; counts nothing. */
  async assertBelow(rule: RateLimitRule, subject: string): Promise<void> {
    const res = await this.run(rule, subject, (l, key) => l.get(key));
    if (res && res.consumedPoints >= rule.points) throw ApiError.tooMany(rule.message, res.msBeforeNext);
  }

  /** Counts one hit without refusing anything (the next check refuses). */
  async count(rule: RateLimitRule, subject: string): Promise<void> {
    await this.run(rule, subject, (l, key) => l.penalty(key));
  }

  /** Takes back one hit, e.g. a login attempt that turned out right. */
  async uncount(rule: RateLimitRule, subject: string): Promise<void> {
    await this.run(rule, subject, (l, key) => l.reward(key));
  }

  async reset(rule: RateLimitRule, subject: string): Promise<void> {
    await this.run(rule, subject, (l, key) => l.delete(key));
  }
}
