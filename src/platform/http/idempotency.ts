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
  /** The answer carried a secret shown once (route.secretInAnswer): it is not kept, only that it was given. */
  secret?: string;
}

/** What a replay of a request whose answer carried a secret says: done, and how to get a new secret. */
export const SECRET_NOT_KEPT = 'already done: its answer carried a secret that is shown only once and is not kept';

/**
 * Takes a new key unless it exists (then the earlier entry decides), after dropping the caller's
 * expired keys from their index; refused (-1, with the soonest expiry) when the caller already holds
 * `max` live keys. KEYS: entry, the caller's index (a sorted set: key digest -> expiry ms).
 * ARGV: entry JSON, lock ms, now ms, max, digest, keep ms.
 */
const TAKE_KEY = `
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, 0} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {-1, oldest[2] or ARGV[3]}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[6]), ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return {1, 0}`;

/** A key reused for another request: 422 (not the usual 400 of errorcode 420). */
class KeyReused extends ApiError {
  override get status(): number {
    return 422;
  }
}

/** Key order and query-vs-body placement do not make two requests different. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as any)[k])]),
    );
  return v;
}

export function fingerprint(method: string, path: string, input: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify([method.toUpperCase(), path, canonical(input)]))
    .digest('hex');
}

/**
 * One caller's use of one Idempotency-Key. Keys are scoped by tenant prefix and person id, and the
 * key itself is hashed, so no caller can reach another's answer. Anonymous calls (login,
 * forgot_password, validate) are not covered: behind one NAT address callers are not told apart.
 * A caller holds at most `maxKeys` live keys (IDEMPOTENCY_MAX_KEYS): the store is bounded per caller.
 */
export class IdempotentCall {
  private constructor(
    private readonly redis: RedisClient,
    private readonly redisKey: string,
    private readonly indexKey: string,
    private readonly digest: string,
    private readonly fp: string,
    private readonly maxKeys: number,
  ) {}

  /** null when the request carries no key or is not covered; 420 for a malformed key. */
  static from(
    req: Request,
    route: RouteDefinition,
    tenant: Tenant,
    principal: Principal | null,
    redis: RedisClient,
    input: Record<string, unknown>,
    maxKeys: number,
  ): IdempotentCall | null {
    if (!takesIdempotencyKey(route) || !principal) return null;
    const raw = req.get(IDEMPOTENCY_HEADER);
    if (raw === undefined) return null;
    if (!KEY_SYNTAX.test(raw)) throw ApiError.malformed(IDEMPOTENCY_HEADER, 'must be 1 to 255 printable ASCII characters');
    const digest = createHash('sha256').update(raw).digest('hex').slice(0, 40);
    const tenantPrefix = tenantKeyPrefix(tenant, redis);
    const key = `${tenantPrefix}idem:${principal.personId}:${digest}`;
    return new IdempotentCall(
      redis,
      key,
      `${tenantPrefix}idem-live:${principal.personId}`,
      digest,
      fingerprint(req.method, `${req.baseUrl}${req.path}`, input),
      maxKeys,
    );
  }

  /**
   * The stored answer of an earlier identical request, or null once this request holds the lock.
   * 409 when the earlier answer carried a secret (not kept) or still runs; 422 for another request;
   * 429 when the caller holds too many live keys.
   */
  async begin(): Promise<StoredAnswer | null> {
    const entry: Entry = { fp: this.fp };
    const now = Date.now();
    const [took, oldest] = (await this.redis.eval(
      TAKE_KEY,
      2,
      this.redisKey,
      this.indexKey,
      JSON.stringify(entry),
      LOCK_MS,
      now,
      this.maxKeys,
      this.digest,
      KEEP_MS,
    )) as [number, string | number];
    if (took === 1) return null;
    if (took === -1) {
      throw ApiError.tooMany(
        `too many ${IDEMPOTENCY_HEADER}s: a caller may hold ${this.maxKeys} keys at once (each is kept 24 hours); send the request without the header or retry later`,
        Math.max(1000, Number(oldest) - now),
      );
    }
    return this.answerOf(await this.redis.get(this.redisKey));
  }

  /**
   * What an earlier use of the key decides, before this request is checked at all: its 2xx answer
   * (replayed even when the access rule would now refuse, e.g. a DELETE whose object is gone: it is
   * the caller's own answer), a 409 or 422 as in begin(); null when the key is free.
   */
  async earlier(): Promise<StoredAnswer | null> {
    const text = await this.redis.get(this.redisKey);
    return text === null ? null : this.answerOf(text);
  }

  private answerOf(text: string | null): StoredAnswer {
    const earlier = text ? (JSON.parse(text) as Entry) : null;
    if (earlier && earlier.fp !== this.fp) {
      throw new KeyReused(420, `malformed parameter ${IDEMPOTENCY_HEADER}: the key was used for a different request in the last 24 hours`, {
        parameter: IDEMPOTENCY_HEADER,
      });
    }
    if (earlier?.secret !== undefined) throw new ApiError(409, `${SECRET_NOT_KEPT}; ${earlier.secret}`);
    if (earlier?.answer) return earlier.answer;
    // Still running (or finished with a 5xx between the two calls): the client retries.
    throw new ApiError(409, `a request with this ${IDEMPOTENCY_HEADER} is still being processed; retry later`, {}, { 'Retry-After': '1' });
  }

  async finish(answer: StoredAnswer): Promise<void> {
    await this.keep({ fp: this.fp, answer });
  }

  /** The answer carried a secret shown once: only that it was done is kept, with what to do for a new secret. */
  async finishWithSecret(hint: string): Promise<void> {
    await this.keep({ fp: this.fp, secret: hint });
  }

  /** Answers that are not kept (anything but 2xx, cookie answers, streams): the next try with the key runs again. */
  async abandon(): Promise<void> {
    await this.redis.multi().del(this.redisKey).zrem(this.indexKey, this.digest).exec();
  }

  private async keep(entry: Entry): Promise<void> {
    await this.redis
      .multi()
      .set(this.redisKey, JSON.stringify(entry), 'PX', KEEP_MS)
      .zadd(this.indexKey, Date.now() + KEEP_MS, this.digest)
      .pexpire(this.indexKey, KEEP_MS)
      .exec();
  }
}
