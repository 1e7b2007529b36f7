import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import { PersonDirectory } from '../../people';
import type { Tenant } from '../../platform/tenancy/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { SessionStore } from '../accounts/session-store';
import { SignonHashStore } from '../accounts/signon-hash-store';

const BAD_HASH = 'the sign-on hash is unknown, expired (valid 30 seconds) or already used';

/**
 * Sign-on where this service is master of credentials: the single-use hash from
 * POST /api/login is turned into a session (validate) or checked by a third party
 * (validate_auth_token). Any attempt that names the hash uses it up, right or wrong,
 * so a hash can never be probed twice.
 */
@injectable()
export class SignonService {
  constructor(
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(SignonHashStore) private readonly hashes: SignonHashStore,
    @inject(SessionStore) private readonly sessions: SessionStore,
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

  /** Uses up the hash and opens a session for its person; returns the session id. */
  async signOn(userName: string, hash: string): Promise<string> {
    const personId = await this.hashes.consume(this.tenant, hash);
    if (personId === null) throw new ApiError(401, BAD_HASH);
    const person = await this.persons.find({ id: personId }, ['id', 'user_name']);
    if (!person || person.user_name !== userName) throw new ApiError(401, 'the sign-on hash was not issued to this user_name');
    return this.sessions.create(this.tenant, person.id);
  }

  /** Uses up the hash; true when it was issued to this person id. */
  async checkAuthToken(userId: number, hash: string): Promise<void> {
    const personId = await this.hashes.consume(this.tenant, hash);
    if (personId === null) throw new ApiError(401, BAD_HASH);
    if (personId !== userId) throw new ApiError(401, 'the sign-on hash was not issued to this user_id');
  }
}
