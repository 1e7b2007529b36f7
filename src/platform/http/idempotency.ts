import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { RedisClient } from '../redis/redis-client';
import { ApiError } from '../errors/api-error';
import type { Tenant } from '../tenant-scope/tenant';
import { tenantKeyPrefix } from '../redis/redis-keys';
import type { Principal } from '../auth/principal';
import type { RouteDefinition } from './define-route';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const KEEP_MS = 24 * 3600 * 1000;
// Long enough for the slowest write (an import-sized person list); a crashed process frees it then.
const LOCK_MS = 5 * 60 * 1000;
const KEY_SYNTAX = /^[\x20-\x7e]{1,255}$/;

/** Every POST, the PUT of a registration (the one PUT clients retry blindly) and the PUTs and DELETEs that declare `idempotencyKey`. */
export function takesIdempotencyKey(route: Pick<RouteDefinition, 'method' | 'path' | 'idempotencyKey'>): boolean {
  return route.method === 'post' || route.idempotencyKey === true || (route.method === 'put' && route.path.startsWith('/personcompetences'));
}

/** What is kept of an answer: enough to send it again byte for byte (bar the replay header). */
export interface StoredAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Entry {
  fp: string;
  answer?: StoredAnswer;
}

/** A key reused for another request: 422 (not the usual 400 of errorcode 420). */
class KeyReused extends ApiError {
  override get status(): number {
    return 422;
  }
}

/** Key order and query-vs-body placement do not make two requests different. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as any)[k])]));
  return v;
}

export function fingerprint(method: string, path: string, input: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify([method.toUpperCase(), path, canonical(input)])).digest('hex');
}

/**
 * One caller's use of one Idempotency-Key. Keys are scoped by tenant prefix and person id, and the
 * key itself is hashed, so no caller can reach another's answer. Anonymous calls (login,
 * forgot_password, validate) are not covered: behind one NAT address callers are not told apart.
 */
export class IdempotentCall {
  private constructor(
    private readonly redis: RedisClient,
    private readonly redisKey: string,
    private readonly fp: string,
  ) {}

  /** null when the request carries no key or is not covered; 420 for a malformed key. */
  static from(req: Request, route: RouteDefinition, tenant: Tenant, principal: Principal | null, redis: RedisClient, input: Record<string, unknown>): IdempotentCall | null {
    if (!takesIdempotencyKey(route) || !principal) return null;
    const raw = req.get(IDEMPOTENCY_HEADER);
    if (raw === undefined) return null;
    if (!KEY_SYNTAX.test(raw)) throw ApiError.malformed(IDEMPOTENCY_HEADER, 'must be 1 to 255 printable ASCII characters');
    const digest = createHash('sha256').update(raw).digest('hex').slice(0, 40);
    const key = `${tenantKeyPrefix(tenant, redis)}idem:${principal.personId}:${digest}`;
    return new IdempotentCall(redis, key, fingerprint(req.method, `${req.baseUrl}${req.path}`, input));
  }

  /** The stored answer of an earlier identical request, or null once this request holds the lock. */
  async begin(): Promise<StoredAnswer | null> {
    const entry: Entry = { fp: this.fp };
    const took = await this.redis.set(this.redisKey, JSON.stringify(entry), 'PX', LOCK_MS, 'NX');
    if (took) return null;
    const text = await this.redis.get(this.redisKey);
    const earlier = text ? (JSON.parse(text) as Entry) : null;
    if (earlier && earlier.fp !== this.fp) {
      throw new KeyReused(420, `malformed parameter ${IDEMPOTENCY_HEADER}: the key was used for a different request in the last 24 hours`, { parameter: IDEMPOTENCY_HEADER });
    }
    if (earlier?.answer) return earlier.answer;
    // Still running (or finished with a 5xx between the two calls): the client retries.
    throw new ApiError(409, `a request with this ${IDEMPOTENCY_HEADER} is still being processed; retry later`, {}, { 'Retry-After': '1' });
  }

  async finish(answer: StoredAnswer): Promise<void> {
    const entry: Entry = { fp: this.fp, answer };
    await this.redis.set(this.redisKey, JSON.stringify(entry), 'PX', KEEP_MS);
  }

  /** 5xx and cookie answers are not kept: the next try with the key runs again. */
  async abandon(): Promise<void> {
    await this.redis.del(this.redisKey);
  }
}
