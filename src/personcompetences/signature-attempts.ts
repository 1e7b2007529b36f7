import { inject, injectable } from 'tsyringe';
import type { Redis } from 'ioredis';
import { REDIS, TENANT } from '../platform/tokens';
import { tenantKeyPrefix, type Tenant } from '../platform/tenancy/tenant';
import { ApiError } from '../platform/errors/api-error';

const MAX_FAILURES = 5;
const WINDOW_SECONDS = 900;

/**
 * Signing checks the password, so it must not become a way to guess one with a
 * borrowed session: after 5 wrong passwords in 15 minutes signing answers 429.
 */
@injectable()
export class SignatureAttempts {
  constructor(
    @inject(REDIS) private readonly redis: Redis,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  private key(personId: number): string {
    return `${tenantKeyPrefix(this.tenant)}sign-fail:${personId}`;
  }

  async assertAllowed(personId: number): Promise<void> {
    const failures = Number((await this.redis.get(this.key(personId))) ?? 0);
    if (failures >= MAX_FAILURES) throw new ApiError(429, 'too many wrong passwords; try signing again later');
  }

  async failed(personId: number): Promise<void> {
    const key = this.key(personId);
    await this.redis.multi().incr(key).expire(key, WINDOW_SECONDS).exec();
  }

  async succeeded(personId: number): Promise<void> {
    await this.redis.del(this.key(personId));
  }
}
