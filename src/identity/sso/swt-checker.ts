import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { explainSwt, secretKey, signSwt, SwtRejected, type SwtCheckResult } from './swt-token';
import { swtChecksOf } from './swt-header';

/**
 * A built token is a working credential for the named user, handed to a superuser who could
 * set the secret anyway; the short cap keeps a copied one from being useful for long.
 */
export const MAX_BUILT_TOKEN_SECONDS = 600;

export interface SwtCheckInput {
  token?: string;
  issuer?: string;
  user_name?: string;
  expires_in_seconds?: number;
}

/** What the token's own checks say; `claimed` is what it says of its user, trusted or not (null: unreadable). */
export interface SwtTokenCheck {
  checks: SwtCheckResult[];
  token?: string;
  claimed: Map<string, string> | null;
}

/**
 * Explains why the tenant's SWT sign-on accepts or refuses a token, with the verifier's own steps
 * up to the user; whether the user exists is the check-swt-token flow's step (it reads persons).
 */
@injectable()
export class SwtChecker {
  constructor(@inject(TENANT) private readonly tenant: Tenant) {}

  /** For superusers only (the route's rule): a built token is a working credential. */
  check(input: SwtCheckInput): SwtTokenCheck {
    const checks = swtChecksOf(this.tenant);
    if (!checks) return { checks: [{ check: 'secret', ok: false, detail: 'SWT sign-on is off: api.oauth.secret is not set' }], claimed: null };
    const built = input.token === undefined ? this.build(input, checks.secret, checks.encoding) : undefined;
    const { results, claimed } = explainSwt(input.token ?? built!, checks);
    return { checks: results, ...(built ? { token: built } : {}), claimed };
  }

  private build(input: SwtCheckInput, secret: string, encoding: 'text' | 'base64'): string {
    if (!input.user_name) throw ApiError.missing('token');
    const seconds = input.expires_in_seconds ?? 300;
    const pairs: [string, string][] = [];
    const issuer = input.issuer ?? this.tenant.config.get('api.oauth.issuer');
    if (issuer) pairs.push(['Issuer', issuer]);
    pairs.push([this.tenant.config.get('api.oauth.user_name_key'), input.user_name]);
    pairs.push(['ExpiresOn', String(Math.floor(Date.now() / 1000) + seconds)]);
    try {
      return signSwt(pairs, secretKey(secret, encoding));
    } catch (err) {
      if (err instanceof SwtRejected) throw ApiError.malformed('token', err.message);
      throw err;
    }
  }
}
