import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { PersonDirectory, accountDeactivated, isDeactivated } from '../../people';
import { SessionStore, SignonService } from '../../identity';

/**
 * GET /api/validate: the single-use hash from POST /api/login (identity) becomes a session, when
 * it was issued to the person (people) the caller names. The hash is used up whatever the outcome.
 * A hash issued before its person was deactivated opens nothing (401 naming it), and
 * validate_auth_token does not confirm it.
 */
@injectable()
export class SignOnWithHashFlow {
  constructor(
    @inject(SignonService) private readonly signon: SignonService,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(SessionStore) private readonly sessions: SessionStore,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  /** Returns the new session's id. */
  async signOn(userName: string, hash: string): Promise<string> {
    const personId = await this.signon.redeem(hash);
    const person = await this.persons.find({ id: personId }, ['id', 'user_name', 'deactivated_at']);
    if (!person || person.user_name !== userName) throw new ApiError(401, 'the sign-on hash was not issued to this user_name');
    if (isDeactivated(person)) throw accountDeactivated(person.user_name);
    return this.sessions.create(this.tenant, person.id);
  }

  /** GET /api/validate_auth_token: uses the hash up; 401 unless it was issued to `userId` and that person is active. */
  async checkAuthToken(userId: number, hash: string): Promise<void> {
    await this.signon.checkAuthToken(userId, hash);
    const person = await this.persons.find({ id: userId }, ['user_name', 'deactivated_at']);
    if (person && isDeactivated(person)) throw accountDeactivated(person.user_name);
  }
}
