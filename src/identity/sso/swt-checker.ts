import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenancy/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { explainSwt, secretKey, signSwt, SwtRejected, type SwtCheckResult } from './swt-token';
import { swtChecksOf } from './swt-auth-scheme';
import { SwtUserFinder } from './swt-user-finder';

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

/** Explains why the tenant's SWT sign-on accepts or refuses a token, with the verifier's own steps. */
@injectable()
export class SwtChecker {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(SwtUserFinder) private readonly users: SwtUserFinder,
  ) {}

  /** For superusers only (the route's rule): a built token is a working credential. */
  async check(input: SwtCheckInput): Promise<{ checks: SwtCheckResult[]; token?: string }> {
    const checks = swtChecksOf(this.tenant);
    if (!checks) return { checks: [{ check: 'secret', ok: false, detail: 'SWT sign-on is off: api.oauth.secret is not set' }] };
    const built = input.token === undefined ? this.build(input, checks.secret, checks.encoding) : undefined;
    const { results, claimed } = explainSwt(input.token ?? built!, checks);
    // Reported for an unsigned token too: "which user would it be" helps find the mistake.
    if (claimed) results.push(await this.userCheck(claimed));
    return { checks: results, ...(built ? { token: built } : {}) };
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

  private async userCheck(params: Map<string, string>): Promise<SwtCheckResult> {
    try {
      const account = await this.users.account(params);
      return { check: 'user', ok: true, detail: `names ${account.user_name}` };
    } catch (err) {
      if (err instanceof SwtRejected) return { check: 'user', ok: false, detail: err.message };
      throw err;
    }
  }
}
