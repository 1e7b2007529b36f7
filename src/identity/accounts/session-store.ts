import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { RedisClient } from '../../platform/redis/redis-client';
import { ENV, REDIS } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { tenantKeyPrefix } from '../../platform/redis/redis-keys';
import { ApiError } from '../../platform/errors/api-error';

export interface SessionData {
  personId: number;
  createdAt: number;
}

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * Login sessions in Redis under the tenant's key prefix: a session id is only ever looked
 * up under the tenant of the request's host, so it means nothing on another tenant.
 * Idle timeout = key TTL, refreshed on use; absolute lifetime checked against createdAt.
 */
@injectable()
export class SessionStore {
  constructor(
    @inject(REDIS) private readonly redis: RedisClient,
    @inject(ENV) private readonly env: Env,
  ) {}

  private key(tenant: Tenant, sessionId: string): string {
    return `${tenantKeyPrefix(tenant, this.redis)}session:${sessionId}`;
  }

  private personIndexKey(tenant: Tenant, personId: number): string {
    return `${tenantKeyPrefix(tenant, this.redis)}person-sessions:${personId}`;
  }

  get idleSeconds(): number {
    return this.env.SESSION_IDLE_MINUTES * 60;
  }

  get maxSeconds(): number {
    return this.env.SESSION_MAX_HOURS * 3600;
  }

  async create(tenant: Tenant, personId: number): Promise<string> {
    const sessionId = randomBytes(32).toString('base64url'); // 256 bits
    const data: SessionData = { personId, createdAt: Date.now() };
    try {
      await this.redis
        .multi()
        .set(this.key(tenant, sessionId), JSON.stringify(data), 'EX', this.idleSeconds)
        .sadd(this.personIndexKey(tenant, personId), sessionId)
        .expire(this.personIndexKey(tenant, personId), this.maxSeconds)
        .exec();
    } catch {
      throw new ApiError(503, 'login is unavailable right now (session store unreachable); try again shortly');
    }
    return sessionId;
  }

  /** The live session, or null; refreshes the idle timeout. */
  async touch(tenant: Tenant, sessionId: string): Promise<SessionData | null> {
    if (!SESSION_ID.test(sessionId)) return null;
    const key = this.key(tenant, sessionId);
    let raw: string | null;
    try {
      raw = await this.redis.getex(key, 'EX', this.idleSeconds);
    } catch {
      throw new ApiError(503, 'sessions are unavailable right now (session store unreachable); try again shortly');
    }
    if (!raw) return null;
    const data = JSON.parse(raw) as SessionData;
    if (Date.now() - data.createdAt > this.maxSeconds * 1000) {
      await this.redis.del(key).catch(() => {});
      return null;
    }
    return data;
  }

  async destroy(tenant: Tenant, sessionId: string): Promise<void> {
    if (!SESSION_ID.test(sessionId)) return;
    const raw = await this.redis.get(this.key(tenant, sessionId));
    const multi = this.redis.multi().del(this.key(tenant, sessionId));
    if (raw) multi.srem(this.personIndexKey(tenant, (JSON.parse(raw) as SessionData).personId), sessionId);
    await multi.exec();
  }

  /** Ends every session of a person except `keep` (after someone else set their password). */
  async destroyAllFor(tenant: Tenant, personId: number, keep?: string): Promise<void> {
    const index = this.personIndexKey(tenant, personId);
    const ids = (await this.redis.smembers(index)).filter((id) => id !== keep);
    if (ids.length === 0) return;
    await this.redis
      .multi()
      .del(...ids.map((id) => this.key(tenant, id)))
      .srem(index, ...ids)
      .exec();
  }
}
