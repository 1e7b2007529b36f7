import { injectable } from 'tsyringe';
import type { Request } from 'express';
import type { AuthScheme } from '../../platform/auth/auth-scheme';
import type { RequestScope } from '../../platform/tenancy/request-scope';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { PrincipalLoader } from '../accounts/principal-loader';
import { SwtRejected, verifySwt, type SwtChecks } from './swt-token';
import type { Tenant } from '../../platform/tenancy/tenant';
import { SwtUserFinder } from './swt-user-finder';

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
 * `Authorization: SWT <token>` (the third party is master of credentials). Every request
 * carries its own token, so no session is created.
 */
@injectable()
export class SwtAuthScheme implements AuthScheme {
  readonly name = 'swt';

  async authenticate(req: Request, scope: RequestScope): Promise<Principal | null> {
    const header = req.headers.authorization;
    if (typeof header !== 'string' || !/^SWT(\s|$)/i.test(header)) return null;
    const m = SWT_HEADER.exec(header);
    if (!m) throw new ApiError(401, 'SWT token refused: the Authorization header must be "SWT <token>"');
    const checks = swtChecksOf(scope.tenant);
    if (!checks) throw new ApiError(401, 'SWT token refused: SWT sign-on is not configured for this tenant');
    try {
      const params = verifySwt(m[1], checks);
      const account = await scope.container.resolve(SwtUserFinder).account(params);
      const principal = scope.container.resolve(PrincipalLoader).toPrincipal(account, 'swt');
      // The third party is master of credentials: our password's age is not its concern.
      return { ...principal, mustChangePassword: null };
    } catch (err) {
      if (err instanceof SwtRejected) throw new ApiError(401, `SWT token refused (${err.check}): ${err.message}`);
      throw err;
    }
  }
}
