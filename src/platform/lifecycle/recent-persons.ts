import { inject, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';
import type { Logger } from 'pino';
import { LRUCache } from 'lru-cache';
import { ENV, REDIS } from '../tokens';
import type { Env } from '../config/env';
import { PrincipalCache } from '../auth/principal-cache';
import { TenantResolver } from '../tenant-scope/tenant-resolver';
import { openTenantScope } from '../tenant-scope/request-scope';
import { forEachBounded } from '../migrations/migrate-all';
import type { RedisClient } from '../redis/redis-client';
import type { PurgedTenant, TenantPurger } from '../tenant-scope/tenant-purgers';

/**
 * The persons an API process served last, kept across a restart so that the next process has their
 * account rows and own views in its caches before it listens (issue 42: after a deploy, the first
 * request of every person who was active a moment ago would otherwise read both, at the moment every
 * other person does the same). A sorted set in Redis: member `<tenant id>:<person id>` (no name, no
 * personal data), score the last use; every API process adds its own on a graceful stop, the set
 * keeps the newest STARTUP_PRELOAD_PERSONS and lives RECENT_PERSONS_TTL_SECONDS after the last stop.
 * What is loaded is read at the start, through each tenant's own scope, as a request would read it:
 * nothing stale, nothing of another tenant (an id is only ever looked up in the schema of its tenant).
 */
export const RECENT_PERSONS_KEY = 'recent-persons';
export const RECENT_PERSONS_TTL_SECONDS = 3600;
/** Persons of one tenant loaded together (one account-row statement each); the budget is checked between batches. */
const PRELOAD_BATCH = 100;

/** The persons this process's authenticated requests were made by, by last use (the tenant middleware marks them). */
@injectable()
export class RecentPersons {
  private readonly used: LRUCache<string, number> | null;

  constructor(@inject(ENV) env: Env) {
    this.used = env.STARTUP_PRELOAD_PERSONS > 0 ? new LRUCache({ max: env.STARTUP_PRELOAD_PERSONS }) : null;
  }

  mark(tenantId: number, personId: number): void {
    this.used?.set(`${tenantId}:${personId}`, Date.now());
  }

  /** `<tenant id>:<person id>` and last use, newest first. */
  newest(): [string, number][] {
    return this.used ? [...this.used.entries()] : [];
  }
}

/**
 * A deleted tenant's members leave the set at once (ids only, and the preload skips a tenant it cannot
 * find, but nothing of a deleted tenant stays behind). The set is one platform key, not one per tenant:
 * a start reads it in one command.
 */
@injectable()
export class RecentPersonsPurger implements TenantPurger {
  readonly name = 'recent-persons';
  constructor(@inject(REDIS) private readonly redis: RedisClient) {}

  async purge(tenant: PurgedTenant): Promise<string> {
    const mine: string[] = [];
    let cursor = '0';
    do {
      const [next, page] = await this.redis.zscan(RECENT_PERSONS_KEY, cursor, 'MATCH', `${tenant.id}:*`, 'COUNT', 1000);
      for (let i = 0; i < page.length; i += 2) mine.push(page[i]);
      cursor = next;
    } while (cursor !== '0');
    for (let i = 0; i < mine.length; i += 1000) await this.redis.zrem(RECENT_PERSONS_KEY, ...mine.slice(i, i + 1000));
    return `${mine.length} recent persons`;
  }
}

/** What a data module or flow loads for the recent persons of one tenant, in that tenant's scope (their cached reads). */
export interface PersonPreloader {
  readonly name: string;
  /** Loads what the persons' next requests read; a person who no longer exists is skipped, not an error. */
  preload(scope: DependencyContainer, personIds: readonly number[]): Promise<void>;
}
export const PERSON_PRELOADERS: InjectionToken<PersonPreloader> = Symbol('PersonPreloaders');

export interface RecentPersonsPreload {
  persons: number;
  tenants: number;
  /** tenants not reached within the budget */
  leftOut: number;
  ms: number;
}

/** On a graceful stop: this process's recent persons join the set (best effort: Redis away loses only the warm start). */
export async function saveRecentPersons(container: DependencyContainer, limit: number): Promise<number> {
  if (limit <= 0 || !container.isRegistered(RecentPersons, true)) return 0;
  const recent = container.resolve(RecentPersons).newest();
  if (recent.length === 0) return 0;
  const redis: RedisClient = container.resolve(REDIS);
  await redis
    .multi()
    .zadd(RECENT_PERSONS_KEY, ...recent.flatMap(([member, used]) => [used, member]))
    .zremrangebyrank(RECENT_PERSONS_KEY, 0, -limit - 1)
    .expire(RECENT_PERSONS_KEY, RECENT_PERSONS_TTL_SECONDS)
    .exec();
  return recent.length;
}

/**
 * Before listening: the newest `limit` recent persons (used within RECENT_PERSONS_TTL_SECONDS), tenant
 * by tenant, four tenants at a time, each tenant's persons through every PERSON_PRELOADERS entry, until
 * `budgetMs` is spent (tenants not reached are left to their first request, as without the preload).
 */
export async function preloadRecentPersons(
  container: DependencyContainer,
  logger: Logger,
  opts: { limit: number; budgetMs: number },
): Promise<RecentPersonsPreload> {
  const started = Date.now();
  const summary: RecentPersonsPreload = { persons: 0, tenants: 0, leftOut: 0, ms: 0 };
  if (opts.limit <= 0 || opts.budgetMs <= 0 || !container.isRegistered(PERSON_PRELOADERS, true)) return summary;
  if (!container.resolve(PrincipalCache).enabled) return summary;
  const redis: RedisClient = container.resolve(REDIS);
  const members = await redis
    .zrevrangebyscore(RECENT_PERSONS_KEY, '+inf', Date.now() - RECENT_PERSONS_TTL_SECONDS * 1000, 'LIMIT', 0, opts.limit)
    .catch((err: Error) => {
      logger.warn({ err: err.message }, 'recent persons: could not read the set; starting without them');
      return [] as string[];
    });
  const byTenant = new Map<number, number[]>();
  for (const m of members) {
    const [tenantId, personId] = m.split(':').map(Number);
    if (!Number.isSafeInteger(tenantId) || !Number.isSafeInteger(personId)) continue;
    const ids = byTenant.get(tenantId);
    if (ids) ids.push(personId);
    else byTenant.set(tenantId, [personId]);
  }
  const preloaders = container.resolveAll(PERSON_PRELOADERS);
  const tenants = container.resolve(TenantResolver);
  const deadline = started + opts.budgetMs;
  await forEachBounded([...byTenant], 4, async ([tenantId, personIds]) => {
    if (Date.now() >= deadline) {
      summary.leftOut++;
      return;
    }
    try {
      const tenant = await tenants.byTenantId(tenantId);
      if (!tenant || tenant.status !== 'active') return;
      const scope = openTenantScope(container, tenant);
      // a tenant with many recent persons goes in batches, so the budget holds for one large tenant too
      for (let i = 0; i < personIds.length && Date.now() < deadline; i += PRELOAD_BATCH) {
        const batch = personIds.slice(i, i + PRELOAD_BATCH);
        for (const p of preloaders) await p.preload(scope, batch);
        summary.persons += batch.length;
      }
      summary.tenants++;
    } catch (err) {
      // a tenant being moved, deleted or not migrated: its persons' first requests read as usual
      logger.warn({ tenantId, err: (err as Error).message }, 'recent persons: preload of a tenant failed');
    }
  });
  summary.ms = Date.now() - started;
  return summary;
}
