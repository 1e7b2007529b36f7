import { inject, injectable } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { verifyAgainstDummy, verifyPassword } from '../../platform/auth/password-hasher';
import { PendingPasswords, PersonCredentials, accountDeactivated, isDeactivated } from '../../people';
import { LoginService, LoginThrottle } from '../../identity';
import { PrincipalLoader } from './principal-loader';

export interface LoginResult {
  sessionId: string;
  hash: string;
  personId: number;
  userName: string;
  mustChangePassword: boolean;
}

/**
 * POST /api/login: checks the password against the person (people) within the login limits, then
 * opens a session and a sign-on hash (identity). Wrong password and unknown user look alike.
 * No transaction: each write stands alone, as before (one read of the person, then the writes).
 */
@injectable()
export class LoginFlow {
  constructor(
    @inject(LoginThrottle) private readonly throttle: LoginThrottle,
    @inject(PersonCredentials) private readonly credentials: PersonCredentials,
    @inject(PendingPasswords) private readonly pending: PendingPasswords,
    @inject(LoginService) private readonly logins: LoginService,
    @inject(PrincipalLoader) private readonly principals: PrincipalLoader,
  ) {}

  /** `ip`: the client address as express resolves it with TRUST_PROXY. */
  async login(userName: string, password: string, ip: string): Promise<LoginResult> {
    await this.throttle.attempt(userName, ip, 'login');
    const { row, ok, mailed } = await this.throttle.deciding(userName, ip, async () => {
      const row = await this.credentials.forLogin(userName);
      const ok = row ? await verifyPassword(row.password_hash, password) : await verifyAgainstDummy(password);
      // A mailed password (see PendingPasswords): using it makes it the password and asks for a new one (418);
      // using the old password discards it, so a stranger's reset request changes nothing.
      const mailed = row && !ok ? await this.pending.matches(row, password) : null;
      return { row, ok, mailed };
    });
    if (!row || (!ok && !mailed)) {
      await this.logins.record('login.failed', userName, ip, { reason: row ? 'wrong password' : 'unknown user name' });
      throw new ApiError(401, 'wrong user name or password');
    }
    await this.throttle.succeeded(userName, ip);
    // Said only after the right password: a guesser learns nothing of the account's state.
    if (isDeactivated(row)) {
      await this.logins.record('login.failed', userName, ip, { reason: 'deactivated' });
      throw accountDeactivated(row.user_name);
    }
    if (mailed) {
      // Gone since the read: the password, e-mail or mobile changed meanwhile; a newer password is never replaced.
      if (!(await this.pending.promote(row.id, mailed))) {
        await this.logins.record('login.failed', userName, ip, { reason: 'mailed password no longer valid' });
        throw new ApiError(401, 'wrong user name or password');
      }
      row.must_change_password = 'sent_by_mail';
    } else if (row.pending_password_hash) await this.pending.discard(row.id);
    const { sessionId, hash } = await this.logins.open(row.id);
    const principal = this.principals.toPrincipal(row, 'session', sessionId);
    await this.logins.record('login.succeeded', row.user_name, ip, mailed ? { with: 'mailed password' } : {});
    return { sessionId, hash, personId: row.id, userName: row.user_name, mustChangePassword: principal.mustChangePassword !== null };
  }
}
