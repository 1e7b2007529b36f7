import { inject, singleton } from 'tsyringe';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ENV, LOGGER, REDIS } from '../tokens';
import type { Env } from '../config/env';
import { TenantStore } from './tenant-store';
import type { Tenant } from './tenant';

export const TENANT_CHANGED_CHANNEL = 'platform:tenant-changed';

interface Cached<T> {
  value: T;
  expires: number;
}

/**
 * Finds the tenant for a request's host, with an in-process cache. Every process
 * subscribes to TENANT_CHANGED_CHANNEL; a change anywhere (config item, host, status)
 * is published there and drops the cached entries at once. The TTL is the safety net
 * for a missed message.
 */
@singleton()
export class TenantResolver {
  private readonly byHost = new Map<string, Cached<number | null>>();
  private readonly byId = new Map<number, Cached<Tenant | null>>();
  private readonly loading = new Map<unknown, Promise<unknown>>();
  /** Bumped by every forget/clear, so a load that started before a change is not cached. */
  private generation = 0;
  private subscriber: Redis | null = null;

  constructor(
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(REDIS) private readonly redis: Redis,
    @inject(ENV) private readonly env: Env,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.subscriber) return;
    this.subscriber = this.redis.duplicate();
    this.subscriber.on('error', (err) => this.logger.warn({ err: err.message }, 'tenant-change subscriber error'));
    this.subscriber.on('message', (_channel, message) => this.forget(Number(message)));
    // After a reconnect we may have missed messages: start over from the database.
    this.subscriber.on('ready', () => this.clear());
    await this.subscriber.subscribe(TENANT_CHANGED_CHANNEL);
  }

  async stop(): Promise<void> {
    const s = this.subscriber;
    this.subscriber = null;
    if (s) await s.quit().catch(() => s.disconnect());
  }

  async byHostName(host: string): Promise<Tenant | null> {
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
  private async cached<K, V>(cache: Map<K, Cached<V>>, key: K, load: (key: K) => Promise<V>): Promise<V> {
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
    // Host entries may point to the tenant (or, for a removed host, used to).
    for (const [host, entry] of this.byHost) if (entry.value === tenantId || entry.value === null) this.byHost.delete(host);
  }

  clear(): void {
    this.generation++;
    this.loading.clear();
    this.byHost.clear();
    this.byId.clear();
  }

  private ttl(): number {
    return this.env.TENANT_CACHE_SECONDS * 1000;
  }
}
