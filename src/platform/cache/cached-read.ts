import type { RouteContext } from '../http/define-route';
import { TenantDataCache } from './tenant-data-cache';

/**
 * A GET route's items from TenantDataCache, for the caller and the parsed input: for routes whose
 * answer depends only on the tenant's data tables (tenant migration 130), the caller's identity and
 * the input, and on time only as `until` says (the instant the answer may change by itself).
 */
export function cachedRead<T extends object>(
  ctx: RouteContext,
  route: string,
  input: unknown,
  load: () => Promise<T>,
  until?: (value: T) => number,
): Promise<T> {
  const user = ctx.user;
  const key = `${route}\u0000${user.personId}\u0000${user.superuser}\u0000${JSON.stringify(input)}`;
  return ctx.resolve(TenantDataCache).get(ctx.tenant, key, load, until);
}
