import type { Request } from 'express';
import { ApiError } from '../errors/api-error';
import { maybeRequestScope } from '../tenant-scope/request-scope';
import { TenantResolver } from '../tenant-scope/tenant-resolver';

/**
 * A write met the fence of a tenant being moved to another cluster: the documented short write
 * pause. The process also drops the tenant from its cache, so that a process which missed the
 * switch message finds the new placement on its next request instead of meeting the fence again.
 */
export function writePausedError(req: Request): ApiError {
  const scope = maybeRequestScope(req);
  if (scope) scope.container.resolve(TenantResolver).forget(scope.tenant.id);
  return new ApiError(
    503,
    'this tenant is being moved to another database cluster: writes pause for a few seconds; retry in 1 second',
    { retry_after_seconds: 1 },
    { 'Retry-After': '1' },
  );
}
