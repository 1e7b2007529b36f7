import { inject, injectable } from 'tsyringe';
import { ENV } from '../tokens';
import type { Env } from '../config/env';
import type { Tenant } from '../tenancy/tenant';
import { PrincipalCache } from './principal-cache';

/** Entries kept at most; beyond it they are all dropped (they are cheap to make again). */
const MAX_ENTRIES = 100_000;

interface Entry {
  tenant: Tenant;
  version: string;
  expires: number;
  value: object;
}

/**
 * Values derived only from a tenant's account data (persons, person_roles, roles, organisations,
 * organisation_managers), kept in this process so that asking again costs no query. Provably fresh
 * the way PrincipalCache is: an entry carries the tenant's account-data version
 * (PrincipalCache.dataVersion), which changes on every committed write to those tables by any
 * path (NOTIFY account_data_changed, tenant migration 120), on every write request of the tenant
 * in this process, and when the listener is lost (then nothing is cached until it is back). A
 * value read while the version changed is not stored. An entry belongs to the Tenant object it was
 * made for, so a config change (a new Tenant object) or a reused schema name never sees it.
 * A time-dependent value says when it goes stale (`until`); PRINCIPAL_CACHE_SECONDS is a safety
 * net only. Values are frozen: every request shares them.
 */
@injectable()
export class AccountDataCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    @inject(PrincipalCache) private readonly versions: PrincipalCache,
    @inject(ENV) private readonly env: Env,
  ) {}

  async get<T extends object>(tenant: Tenant, key: string, load: () => Promise<T>, until?: (value: T) => number): Promise<T> {
    const version = this.versions.dataVersion(tenant.schema);
    if (version === null) return load();
    const full = `${tenant.schema}\u0000${key}`;
    const now = Date.now();
    const hit = this.entries.get(full);
    if (hit && hit.tenant === tenant && hit.version === version && hit.expires > now) return hit.value as T;
    const value = await load();
    if (this.versions.dataVersion(tenant.schema) === version) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      const expires = Math.min(now + this.env.PRINCIPAL_CACHE_SECONDS * 1000, until ? until(value) : Infinity);
      this.entries.set(full, { tenant, version, expires, value: deepFreeze(value) });
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
