import { inject, injectable } from 'tsyringe';
import { ENV } from '../platform/tokens';
import type { Env } from '../platform/config/env';
import type { Tenant } from '../platform/tenancy/tenant';
import { PrincipalCache } from '../platform/auth/principal-cache';

/** Entries kept at most; beyond it they are all dropped (they are cheap to make again). */
const MAX_ENTRIES = 100_000;
const DAY_MS = 86_400_000;

interface Entry {
  tenant: Tenant;
  version: string;
  expires: number;
  value: object;
}

/** The instant the presented person's password becomes too old (then must_change_password changes by itself). */
function passwordExpiry(tenant: Tenant, person: { password_changed_at?: unknown; must_change_password?: unknown }): number {
  const maxAgeDays = tenant.config.get('password.max_age_days');
  if (maxAgeDays === null || person.must_change_password || !person.password_changed_at) return Infinity;
  return new Date(person.password_changed_at as string | Date).getTime() + maxAgeDays * DAY_MS;
}

/**
 * GET /api/person as rendered, per tenant, person and view, so that a logged-in person asking for
 * themself again costs no query. Provably fresh the way PrincipalCache is: an entry carries the
 * tenant's account-data version (PrincipalCache.dataVersion), which changes on every committed
 * write to persons, person_roles, roles, organisations or organisation_managers by any path
 * (NOTIFY account_data_changed, tenant migration 120), on every write request of the tenant in
 * this process, and when the listener is lost (then nothing is cached until it is back). A value
 * read while the version changed is not stored. The entry belongs to the Tenant object it was made
 * for, so a config change (a new Tenant object) or a reused schema name never sees it. The one
 * time-dependent field, the password's expiry, ends the entry when it is due; the TTL
 * (PRINCIPAL_CACHE_SECONDS) is a safety net only.
 */
@injectable()
export class OwnViewCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    @inject(PrincipalCache) private readonly versions: PrincipalCache,
    @inject(ENV) private readonly env: Env,
  ) {}

  async get(tenant: Tenant, personId: number, view: string, load: () => Promise<object>): Promise<object> {
    const version = this.versions.dataVersion(tenant.schema);
    if (version === null) return load();
    const key = `${tenant.schema}\u0000${personId}\u0000${view}`;
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.tenant === tenant && hit.version === version && hit.expires > now) return hit.value;
    const value = await load();
    if (this.versions.dataVersion(tenant.schema) === version) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      const expires = Math.min(now + this.env.PRINCIPAL_CACHE_SECONDS * 1000, passwordExpiry(tenant, value));
      this.entries.set(key, { tenant, version, expires, value: deepFreeze(value) });
    }
    return value;
  }
}

/** Cached values are shared between requests: nothing may change them. */
function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
