import { inject, injectable, type DependencyContainer } from 'tsyringe';
import { LRUCache } from 'lru-cache';
import { ENV } from '../tokens';
import type { Env } from '../config/env';
import type { Tenant } from '../tenant-scope/tenant';
import { PrincipalCache } from '../auth/principal-cache';
import { CLOCK } from '../time/tenant-clock';
import { ROOT_CONTAINER } from '../queue/job-definition';
import { SharedDataVersions } from './shared-data-versions';

interface Entry {
  tenant: Tenant;
  version: string;
  /** Date.now() past which the entry is not used (the TTL). */
  expires: number;
  /** The clock's now (CLOCK, which answers are computed with) at which the answer may change by itself. */
  until: number;
  value: object;
}

/**
 * Answers derived only from a tenant's data tables (tenant migration 130: persons, roles,
 * organisations, competences, registrations, events, ...), kept in this process so that asking
 * again costs no query. Provably fresh the way PrincipalCache is: an entry carries the tenant's
 * data version (PrincipalCache.dataVersion), which changes on every committed write to those
 * tables by any path (NOTIFY tenant_data_changed), on every write request of the tenant in this
 * process, and when the listener is lost (then nothing is cached until it is back). A
 * value read while the version changed is not stored. An entry belongs to the Tenant object it was
 * made for, so a config change (a new Tenant object) or a reused schema name never sees it.
 * A time-dependent value says when it may change by itself (`until`, an instant of CLOCK, the
 * clock the answers are computed with); PRINCIPAL_CACHE_SECONDS is a safety net only.
 * Values are frozen: every request shares them.
 */
@injectable()
export class TenantDataCache {
  // Least recently used entries go first past TENANT_DATA_CACHE_ENTRIES, so a burst of one-off
  // keys (deep pages, rare filters) does not throw away every tenant's hot answers at once.
  private readonly entries: LRUCache<string, Entry>;
  private readonly loading = new Map<string, { tenant: Tenant; version: string; value: Promise<object> }>();
  /**
   * Lookups so far (GET /metrics, tenant_data_cache_lookups_total): answered from an entry (hit), by a
   * load another request had started (shared), by a load of their own (miss), or read directly
   * because nothing may be cached (bypass: caches off, listener away).
   */
  readonly lookups = { hit: 0, shared: 0, miss: 0, bypass: 0 };

  constructor(
    @inject(PrincipalCache) private readonly versions: PrincipalCache,
    @inject(ENV) private readonly env: Env,
    // CLOCK is looked up on use: tests register a fixed one after the cache may have been made
    @inject(ROOT_CONTAINER) private readonly root: DependencyContainer,
  ) {
    this.entries = new LRUCache<string, Entry>({ max: env.TENANT_DATA_CACHE_ENTRIES ?? 100_000 });
  }

  /** The version shared by every API process (SharedDataVersions), where the container has it. */
  private async shared(schema: string): Promise<string | null> {
    if (!this.root.isRegistered(SharedDataVersions, true)) return '';
    return this.root.resolve(SharedDataVersions).read(schema);
  }

  async get<T extends object>(tenant: Tenant, key: string, load: () => Promise<T>, until?: (value: T) => number): Promise<T> {
    const local = this.versions.dataVersion(tenant.schema);
    // a write acknowledged by another process is seen at once, before its notification arrives here
    const shared = local === null ? null : await this.shared(tenant.schema);
    const version = local === null || shared === null ? null : `${local}/${shared}`;
    if (version === null) {
      this.lookups.bypass++;
      return load();
    }
    const full = `${tenant.schema}\u0000${key}`;
    const now = Date.now();
    const hit = this.entries.get(full);
    if (hit && hit.tenant === tenant && hit.version === version && hit.expires > now && hit.until > this.root.resolve(CLOCK).now().getTime()) {
      this.lookups.hit++;
      return hit.value as T;
    }
    // Requests that miss the same entry together share one load (32 connections asking for the
    // same list after a write would otherwise each run its statements).
    const pending = this.loading.get(full);
    if (pending && pending.tenant === tenant && pending.version === version) {
      this.lookups.shared++;
      return pending.value as Promise<T>;
    }
    this.lookups.miss++;
    const loading = { tenant, version, value: load().then(deepFreeze) };
    this.loading.set(full, loading);
    let value: T;
    try {
      value = await loading.value;
    } finally {
      if (this.loading.get(full) === loading) this.loading.delete(full);
    }
    if (this.versions.dataVersion(tenant.schema) === local) {
      const entry = { tenant, version, expires: now + this.env.PRINCIPAL_CACHE_SECONDS * 1000, until: until ? until(value) : Infinity, value };
      this.entries.set(full, entry);
    }
    return value;
  }
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
