import { inject, injectable } from 'tsyringe';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { TenantDataCache } from '../../platform/cache/tenant-data-cache';

const DAY_MS = 86_400_000;

/** The instant the presented person's password becomes too old (then must_change_password changes by itself). */
function passwordExpiry(tenant: Tenant, person: { password_changed_at?: unknown; must_change_password?: unknown }): number {
  const maxAgeDays = tenant.config.get('password.max_age_days');
  if (maxAgeDays === null || person.must_change_password || !person.password_changed_at) return Infinity;
  return new Date(person.password_changed_at as string | Date).getTime() + maxAgeDays * DAY_MS;
}

/**
 * GET /api/person as rendered, per tenant, person and view, so that a logged-in person asking for
 * themself again costs no query. Everything in it comes from the account data that
 * TenantDataCache watches; the one time-dependent field, the password's expiry, ends the entry
 * when it is due.
 */
@injectable()
export class OwnViewCache {
  constructor(@inject(TenantDataCache) private readonly cache: TenantDataCache) {}

  get(tenant: Tenant, personId: number, view: string, load: () => Promise<object>): Promise<object> {
    return this.cache.get(tenant, `own-view\u0000${personId}\u0000${view}`, load, (v) => passwordExpiry(tenant, v));
  }
}
