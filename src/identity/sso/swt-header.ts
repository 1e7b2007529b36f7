import type { Request } from 'express';
import { ApiError } from '../../platform/errors/api-error';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { SwtChecks, SwtRejected } from './swt-token';

/** The tenant's SWT settings as checks; null while no secret is set (SWT sign-on is off). */
export function swtChecksOf(tenant: Tenant): SwtChecks | null {
  const cfg = tenant.config;
  const secret = cfg.get('api.oauth.secret');
  if (!secret) return null;
  return {
    secret,
    previousSecret: cfg.get('api.oauth.previous_secret'),
    encoding: cfg.get('api.oauth.secret_encoding'),
    issuer: cfg.get('api.oauth.issuer'),
    clockSkewSeconds: cfg.get('api.oauth.clock_skew_seconds'),
    requireExpiresOn: cfg.get('api.oauth.require_expires_on'),
    maxLifetimeSeconds: cfg.get('api.oauth.max_token_lifetime_seconds'),
  };
}

const SWT_HEADER = /^SWT\s+(\S+)\s*$/i;

/**
 * The token of an `Authorization: SWT <token>` header and the tenant's checks for it; null when
 * the request carries no SWT header (another scheme decides). A malformed header, or SWT sign-on
 * switched off for the tenant, is a 401 at once.
 */
export function presentedSwt(req: Request, tenant: Tenant): { token: string; checks: SwtChecks } | null {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || !/^SWT(\s|$)/i.test(header)) return null;
  const m = SWT_HEADER.exec(header);
  if (!m) throw new ApiError(401, 'SWT token refused: the Authorization header must be "SWT <token>"');
  const checks = swtChecksOf(tenant);
  if (!checks) throw new ApiError(401, 'SWT token refused: SWT sign-on is not configured for this tenant');
  return { token: m[1], checks };
}

/** Every refused SWT token answers this 401, naming the check that failed (never the secret). */
export function swtRefusal(err: SwtRejected): ApiError {
  return new ApiError(401, `SWT token refused (${err.check}): ${err.message}`);
}
