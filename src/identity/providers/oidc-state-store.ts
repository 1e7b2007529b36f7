import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { RedisClient } from '../../platform/redis/redis-client';
import { REDIS } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { tenantKeyPrefix } from '../../platform/redis/redis-keys';

/** How long a started sign-in may take at the identity provider. */
export const OIDC_STATE_SECONDS = 600;
const STATE = /^[A-Za-z0-9_-]{32,64}$/;

export interface PendingSignIn {
  providerId: string;
  nonce: string;
  codeVerifier: string;
  forwardUrl: string;
}

/**
 * A started OIDC sign-in, kept server-side under its state: the nonce, the PKCE verifier and where
 * to go afterwards. Bound to the tenant (the key) and the provider (checked by the caller); used once.
 */
@injectable()
export class OidcStateStore {
  constructor(@inject(REDIS) private readonly redis: RedisClient) {}

  private key(tenant: Tenant, state: string): string {
    return `${tenantKeyPrefix(tenant, this.redis)}oidc-state:${state}`;
  }

  async save(tenant: Tenant, pending: PendingSignIn): Promise<string> {
    const state = randomBytes(24).toString('base64url');
    await this.redis.set(this.key(tenant, state), JSON.stringify(pending), 'EX', OIDC_STATE_SECONDS);
    return state;
  }

  /** The pending sign-in; gone afterwards, whatever comes of it (a replay finds nothing). */
  async consume(tenant: Tenant, state: string): Promise<PendingSignIn | null> {
    if (!STATE.test(state)) return null;
    const value = await this.redis.getdel(this.key(tenant, state));
    return value === null ? null : (JSON.parse(value) as PendingSignIn);
  }
}
