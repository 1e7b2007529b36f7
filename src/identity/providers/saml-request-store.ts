import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { RedisClient } from '../../platform/redis/redis-client';
import { REDIS } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { tenantKeyPrefix } from '../../platform/redis/redis-keys';
import { OIDC_STATE_SECONDS } from './oidc-state-store';

/** AuthnRequest ids we make: "_" and 40 hex digits (an xsd:ID must not start with a digit). */
const REQUEST_ID = /^_[0-9a-f]{40}$/;
/** An assertion id stays used this long at most, whatever its NotOnOrAfter says. */
const MAX_ASSERTION_SECONDS = 24 * 3600;

export interface PendingSamlRequest {
  providerId: string;
  forwardUrl: string;
  /** When the AuthnRequest was made (ISO): node-saml checks its age. */
  issuedAt: string;
}

/**
 * A started SAML sign-in, kept server-side under its AuthnRequest id, and the ids of assertions
 * already used. Bound to the tenant (the key) and the provider (checked by the caller); each used once.
 */
@injectable()
export class SamlRequestStore {
  constructor(@inject(REDIS) private readonly redis: RedisClient) {}

  newRequestId(): string {
    return `_${randomBytes(20).toString('hex')}`;
  }

  private key(tenant: Tenant, what: string, id: string): string {
    return `${tenantKeyPrefix(tenant, this.redis)}saml-${what}:${id}`;
  }

  async save(tenant: Tenant, requestId: string, pending: PendingSamlRequest): Promise<void> {
    await this.redis.set(this.key(tenant, 'request', requestId), JSON.stringify(pending), 'EX', OIDC_STATE_SECONDS);
  }

  /** The pending sign-in; gone afterwards, whatever comes of it (a replay finds nothing). */
  async consume(tenant: Tenant, requestId: string): Promise<PendingSamlRequest | null> {
    if (!REQUEST_ID.test(requestId)) return null;
    const value = await this.redis.getdel(this.key(tenant, 'request', requestId));
    return value === null ? null : (JSON.parse(value) as PendingSamlRequest);
  }

  /** true the first time an assertion id of this provider is seen; kept until the assertion expires. */
  async firstUse(tenant: Tenant, providerId: string, assertionId: string, untilMs: number): Promise<boolean> {
    const seconds = Math.min(MAX_ASSERTION_SECONDS, Math.max(60, Math.ceil((untilMs - Date.now()) / 1000) + 120));
    const ok = await this.redis.set(this.key(tenant, 'assertion', `${providerId}:${assertionId.slice(0, 200)}`), '1', 'EX', seconds, 'NX');
    return ok === 'OK';
  }
}
