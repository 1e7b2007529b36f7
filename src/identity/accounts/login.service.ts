import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Tenant } from '../../platform/tenancy/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { verifyAgainstDummy, verifyPassword } from '../../platform/auth/password-hasher';
import { SessionStore } from './session-store';
import { SignonHashStore } from './signon-hash-store';
import { PrincipalLoader } from './principal-loader';
import { PendingPasswords, PersonCredentials } from '../../people';
import { recordSecurityEvent } from '../../platform/audit';
import type { Principal } from '../../platform/auth/principal';
import { LoginThrottle } from './login-throttle';

export interface LoginResult {
  sessionId: string;
  hash: string;
  personId: number;
  userName: string;
  mustChangePassword: boolean;
}

/** Checks credentials and opens a session; wrong password and unknown user look alike. */
@injectable()
export class LoginService {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(SessionStore) private readonly sessions: SessionStore,
    @inject(SignonHashStore) private readonly hashes: SignonHashStore,
    @inject(PrincipalLoader) private readonly principals: PrincipalLoader,
    @inject(PendingPasswords) private readonly pending: PendingPasswords,
    @inject(LoginThrottle) private readonly throttle: LoginThrottle,
    @inject(PersonCredentials) private readonly credentials: PersonCredentials,
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
      await this.audit('login.failed', userName, ip, { reason: row ? 'wrong password' : 'unknown user name' });
      throw new ApiError(401, 'wrong user name or password');
    }
    await this.throttle.succeeded(userName, ip);
    if (mailed) {
      await this.pending.promote(row.id, mailed);
      row.must_change_password = 'sent_by_mail';
    } else if (row.pending_password_hash) await this.pending.discard(row.id);
    const sessionId = await this.sessions.create(this.tenant, row.id);
    const hash = await this.hashes.issue(this.tenant, row.id);
    const principal = this.principals.toPrincipal(row, 'session', sessionId);
    await this.audit('login.succeeded', row.user_name, ip, mailed ? { with: 'mailed password' } : {});
    return { sessionId, hash, personId: row.id, userName: row.user_name, mustChangePassword: principal.mustChangePassword !== null };
  }

  async logout(principal: Principal | null, ip: string): Promise<void> {
    if (principal?.sessionId) {
      await this.sessions.destroy(this.tenant, principal.sessionId);
      await this.audit('logout', principal.userName, ip, {});
    }
  }

  private audit(type: 'login.succeeded' | 'login.failed' | 'logout', userName: string, ip: string, details: Record<string, unknown>) {
    return recordSecurityEvent(this.db, { type, actor: userName || 'anonymous', subject: userName, ip, details });
  }
}
