import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { SignonHashStore } from '../accounts/signon-hash-store';

const BAD_HASH = 'the sign-on hash is unknown, expired (valid 30 seconds) or already used';

/**
 * Sign-on where this service is master of credentials: the single-use hash from
 * POST /api/login is turned into a session (validate) or checked by a third party
 * (validate_auth_token). Any attempt that names the hash uses it up, right or wrong,
 * so a hash can never be probed twice. Opening the session checks the person, so that step is
 * the sign-on-with-hash flow's (src/flows/identity/sign-on-with-hash.ts).
 */
@injectable()
export class SignonService {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(SignonHashStore) private readonly hashes: SignonHashStore,
  ) {}

  /** forward_url must be http(s) on one of signon.forward_url_hosts: no open redirect. */
  checkForwardUrl(forwardUrl: string): string {
    let url: URL;
    try {
      url = new URL(forwardUrl);
    } catch {
      throw ApiError.malformed('forward_url', 'must be an absolute http or https URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw ApiError.malformed('forward_url', 'must be an absolute http or https URL');
    if (url.username || url.password) throw ApiError.malformed('forward_url', 'must not contain user name or password');
    const allowed = this.tenant.config.get('signon.forward_url_hosts').map((h) => h.toLowerCase());
    if (!allowed.includes(url.hostname.toLowerCase())) {
      throw ApiError.malformed('forward_url', `host ${url.hostname} is not in this tenant's signon.forward_url_hosts`);
    }
    return url.href;
  }

  /** Uses up the hash; the id of the person it was issued to (401 when unknown, expired or used). */
  async redeem(hash: string): Promise<number> {
    const personId = await this.hashes.consume(this.tenant, hash);
    if (personId === null) throw new ApiError(401, BAD_HASH);
    return personId;
  }

  /** Uses up the hash; true when it was issued to this person id. */
  async checkAuthToken(userId: number, hash: string): Promise<void> {
    const personId = await this.redeem(hash);
    if (personId !== userId) throw new ApiError(401, 'the sign-on hash was not issued to this user_id');
  }
}
