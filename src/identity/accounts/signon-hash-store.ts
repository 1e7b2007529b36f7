import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { RedisClient } from '../../platform/redis/redis-client';
import { REDIS } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { tenantKeyPrefix } from '../../platform/redis/redis-keys';

export const SIGNON_HASH_SECONDS = 30;
const HASH = /^[A-Za-z0-9_-]{32,64}$/;

/** Short-lived, single-use sign-on hashes handed out by login (GET /api/validate consumes them). */
@injectable()
export class SignonHashStore {
  constructor(@inject(REDIS) private readonly redis: RedisClient) {}

  private key(tenant: Tenant, hash: string): string {
    return `${tenantKeyPrefix(tenant, this.redis)}signon:${hash}`;
  }

  async issue(tenant: Tenant, personId: number): Promise<string> {
    const hash = randomBytes(24).toString('base64url');
    await this.redis.set(this.key(tenant, hash), String(personId), 'EX', SIGNON_HASH_SECONDS);
    return hash;
  }

  /** The person the hash was issued to; the hash is gone afterwards (single use). */
  async consume(tenant: Tenant, hash: string): Promise<number | null> {
    if (!HASH.test(hash)) return null;
    const value = await this.redis.getdel(this.key(tenant, hash));
    return value === null ? null : Number(value);
  }

  /** Checks without consuming (validate_auth_token). */
  async peek(tenant: Tenant, hash: string): Promise<number | null> {
    if (!HASH.test(hash)) return null;
    const value = await this.redis.get(this.key(tenant, hash));
    return value === null ? null : Number(value);
  }
}
