import { inject, singleton } from 'tsyringe';
import { duplicateClient, type RedisClient } from '../redis/redis-client';
import type { Logger } from 'pino';
import { LRUCache } from 'lru-cache';
import { ENV, LOGGER, REDIS } from '../tokens';
import type { Env } from '../config/env';
import { TenantStore } from './tenant-store';
import type { Tenant } from './tenant';
import { isValidHostName } from './host-name';
import { MAIN_CLUSTER } from '../clusters/clusters';

export const TENANT_CHANGED_CHANNEL = 'platform:tenant-changed';

/** Tenants per statement of the start-up preload (each row carries its hosts and config items). */
const PRELOAD_PAGE = 1000;
/** Reads of one page again when a change message came in meanwhile, before the page is left to load on demand. */
const PRELOAD_RETRIES = 3;

interface Cached<T> {
  value: T;
  expires: number;
}

interface CacheLike<K, V> {
  get(key: K): Cached<V> | undefined;
  set(key: K, value: Cached<V>): unknown;
}

/**
 * Finds the tenant for a request's host, with an in-process cache. Every process
 * subscribes to TENANT_CHANGED_CHANNEL; a change anywhere (config item, host, status)
 * is published there and drops the cached entries at once. The TTL is the safety net
 * for a missed message.
 */
@singleton()
export class TenantResolver {
  /**
   * Known and unknown hosts in separate LRU caches, so a flood of random Host values neither grows
   * memory without bound nor evicts the real hosts. Unknown hosts: TENANT_HOST_CACHE_MAX. Known
   * hosts and tenants hold only real tenants, so they are sized to the deployment
   * (TENANT_CACHE_MAX, default 100,000): an LRU smaller than the tenants requested in turn misses
   * on every request (with 10,000 tenants and a bound of 10,000 it sat at the edge).
   */
  private readonly knownHosts: LRUCache<string, Cached<number | null>>;
  private readonly unknownHosts: LRUCache<string, Cached<number | null>>;
  private readonly byHost: CacheLike<string, number | null>;
  private readonly byId: LRUCache<number, Cached<Tenant | null>>;
  private readonly loading = new Map<unknown, Promise<unknown>>();
  /** Bumped by every forget/clear, so a load that started before a change is not cached. */
  private generation = 0;
  private subscriber: RedisClient | null = null;

  constructor(
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(REDIS) private readonly redis: RedisClient,
    @inject(ENV) private readonly env: Env,
    @inject(LOGGER) private readonly logger: Logger,
  ) {
    this.knownHosts = new LRUCache({ max: env.TENANT_CACHE_MAX });
    this.unknownHosts = new LRUCache({ max: env.TENANT_HOST_CACHE_MAX });
    this.byId = new LRUCache({ max: env.TENANT_CACHE_MAX });
    this.byHost = {
      get: (host) => this.knownHosts.get(host) ?? this.unknownHosts.get(host),
      set: (host, entry) => {
        (entry.value === null ? this.unknownHosts : this.knownHosts).set(host, entry);
        (entry.value === null ? this.knownHosts : this.unknownHosts).delete(host);
      },
    };
  }

  /** Entries held now (tests check the bound). */
  cacheSizes(): { knownHosts: number; unknownHosts: number; tenants: number; max: number; tenantMax: number } {
    return {
      knownHosts: this.knownHosts.size,
      unknownHosts: this.unknownHosts.size,
      tenants: this.byId.size,
      max: this.unknownHosts.max,
      tenantMax: this.knownHosts.max,
    };
  }

  async start(): Promise<void> {
    if (this.subscriber) return;
    const subscriber = duplicateClient(this.redis);
    this.subscriber = subscriber;
    subscriber.on('error', (err) => this.logger.warn({ err: err.message }, 'tenant-change subscriber error'));
    subscriber.on('message', (_channel, message) => this.forget(Number(message)));
    // After a reconnect we may have missed messages: start over from the database. Only after a
    // connection that had subscribed was lost: the first 'ready' is not a reconnect, and it may
    // arrive after subscribe() resolved (a Redis Cluster readies later; ioredis emits 'ready' on a
    // later tick) and after preload() filled the cache, which it would empty again.
    let subscribed = false;
    let lost = false;
    subscriber.on('close', () => {
      if (subscribed) lost = true;
    });
    subscriber.on('ready', () => {
      if (!lost) return;
      lost = false;
      this.clear();
    });
    await subscriber.subscribe(TENANT_CHANGED_CHANNEL);
    subscribed = true;
  }

  /**
   * Fills the cache with every tenant (up to TENANT_CACHE_MAX), a page of PRELOAD_PAGE per
   * statement, before the API answers ready: otherwise the first request of each tenant after a
   * start waits for its two lookups, and with many tenants those first requests queue behind each
   * other. Call after start(), so that a change published meanwhile wins (a page read while the
   * generation moved is read again, up to PRELOAD_RETRIES times, then left out of the cache: its
   * tenants load on demand). Returns how many tenants it cached,
   * the clusters of the tenants it read and those tenants (a dropped page's too: the connections and
   * the catalog warm-up need their schema and cluster, not fresh config).
   */
  async preload(): Promise<{ tenants: number; clusters: string[]; read: { id: number; schema: string; cluster: string; host?: string }[] }> {
    const clusters = new Set<string>();
    const list: { id: number; schema: string; cluster: string; host?: string }[] = [];
    let cached = 0;
    let afterId = 0;
    let retries = 0;
    while (cached < this.env.TENANT_CACHE_MAX) {
      const generation = this.generation;
      const page = await this.store.loadPage(afterId, Math.min(PRELOAD_PAGE, this.env.TENANT_CACHE_MAX - cached));
      if (page.length === 0) break;
      // a change came in while the page was read: read it again (a page dropped without it left the
      // cache, and the clusters to open connections to, empty right after a start; #42)
      if (generation !== this.generation && retries < PRELOAD_RETRIES) {
        retries++;
        continue;
      }
      retries = 0;
      afterId = page[page.length - 1].id;
      // what the start-up does with the tenants (connections, catalog warm-up) needs no fresh config
      for (const tenant of page) {
        clusters.add(tenant.cluster ?? MAIN_CLUSTER);
        list.push({ id: tenant.id, schema: tenant.schema, cluster: tenant.cluster ?? MAIN_CLUSTER, host: tenant.hosts[0] });
      }
      if (generation !== this.generation) continue;
      const expires = Date.now() + this.ttl();
      for (const tenant of page) {
        this.byId.set(tenant.id, { value: tenant, expires });
        for (const host of tenant.hosts) this.byHost.set(host, { value: tenant.id, expires });
      }
      cached += page.length;
    }
    return { tenants: cached, clusters: [...clusters], read: list };
  }

  async stop(): Promise<void> {
    const s = this.subscriber;
    this.subscriber = null;
    if (s) await s.quit().catch(() => s.disconnect());
  }

  /** null for an unknown host; a host that is not a valid host name never reaches the database. */
  async byHostName(host: string): Promise<Tenant | null> {
    if (!isValidHostName(host)) return null;
    const id = await this.cached(this.byHost, host.toLowerCase(), (key) => this.store.findIdByHost(key));
    return id === null ? null : this.byTenantId(id);
  }

  byTenantId(id: number): Promise<Tenant | null> {
    return this.cached(this.byId, id, (key) => this.store.load(key));
  }

  /**
   * A fresh entry is returned as is. An entry past its TTL is still returned while one
   * background load replaces it: the TTL only guards against a missed change message, so
   * a request need not wait for the database. A missing entry is loaded once for all callers.
   */
  private async cached<K, V>(cache: CacheLike<K, V>, key: K, load: (key: K) => Promise<V>): Promise<V> {
    const hit = cache.get(key);
    if (hit && hit.expires >= Date.now()) return hit.value;
    let pending = this.loading.get(key);
    if (!pending) {
      const generation = this.generation;
      pending = load(key)
        .then((value) => {
          // a change message that arrived while loading wins over what was loaded
          if (generation === this.generation) cache.set(key, { value, expires: Date.now() + this.ttl() });
          return value;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    if (hit) {
      pending.catch((err) => this.logger.warn({ err: (err as Error).message }, 'tenant cache refresh failed; serving the cached entry'));
      return hit.value;
    }
    return pending as Promise<V>;
  }

  /** Tells every process (this one included) to drop what it knows of the tenant. */
  async publishChange(tenantId: number): Promise<void> {
    this.forget(tenantId);
    try {
      await this.redis.publish(TENANT_CHANGED_CHANNEL, String(tenantId));
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, tenantId }, 'could not publish tenant change; other processes catch up by TTL');
    }
  }

  forget(tenantId: number): void {
    this.generation++;
    this.loading.clear();
    this.byId.delete(tenantId);
    // Host entries may point to the tenant (or, for a removed host, used to); a new host was unknown.
    const stale = [...this.knownHosts.entries()].filter(([, entry]) => entry.value === tenantId);
    for (const [host] of stale) this.knownHosts.delete(host);
    this.unknownHosts.clear();
  }

  clear(): void {
    this.generation++;
    this.loading.clear();
    this.knownHosts.clear();
    this.unknownHosts.clear();
    this.byId.clear();
  }

  private ttl(): number {
    return this.env.TENANT_CACHE_SECONDS * 1000;
  }
}
