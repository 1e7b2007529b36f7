import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { ENV, REDIS, TENANT } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { RedisClient } from '../../platform/redis/redis-client';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { tenantKeyPrefix } from '../../platform/redis/redis-keys';
import { sha256Hex } from './client-secret';

/** What an access token stands for: the client (and the secret version it was issued under) and its scopes. */
export interface AccessTokenGrant {
  clientId: string;
  secretVersion: number;
  scopes: string[];
}

/**
 * Opaque access tokens (at_ + base64url of 256 random bits) kept in Redis under the tenant's prefix,
 * by their SHA-256 only, for OAUTH_TOKEN_TTL_SECONDS. The tenant prefix binds a token to its tenant:
 * looked up on another tenant's host it is simply unknown.
 */
@injectable()
export class AccessTokenStore {
  constructor(
    @inject(REDIS) private readonly redis: RedisClient,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(ENV) private readonly env: Env,
  ) {}

  private key(token: string): string {
    return `${tenantKeyPrefix(this.tenant, this.redis)}oauth:at:${sha256Hex(token)}`;
  }

  get ttlSeconds(): number {
    return this.env.OAUTH_TOKEN_TTL_SECONDS;
  }

  async issue(grant: AccessTokenGrant): Promise<string> {
    const token = `at_${randomBytes(32).toString('base64url')}`;
    await this.redis.set(this.key(token), JSON.stringify(grant), 'EX', this.ttlSeconds);
    return token;
  }

  /** The token's grant, or null when it is unknown, expired or another tenant's. */
  async lookup(token: string): Promise<AccessTokenGrant | null> {
    if (!/^at_[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const text = await this.redis.get(this.key(token));
    return text ? (JSON.parse(text) as AccessTokenGrant) : null;
  }

  /** Ends one token now (tests; a future revocation endpoint). */
  async revoke(token: string): Promise<void> {
    await this.redis.del(this.key(token));
  }
}
