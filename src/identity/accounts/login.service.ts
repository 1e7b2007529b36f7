import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { recordSecurityEvent } from '../../platform/audit';
import type { Principal } from '../../platform/auth/principal';
import { SessionStore } from './session-store';
import { SignonHashStore } from './signon-hash-store';

export type LoginEventType = 'login.succeeded' | 'login.failed' | 'login.sso' | 'logout';

/**
 * Identity's side of a login: the session and sign-on hash a checked login opens, the security
 * events, and logout. Checking the password reads the person, so that is the login flow's
 * (src/flows/identity/login.ts).
 */
@injectable()
export class LoginService {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(SessionStore) private readonly sessions: SessionStore,
    @inject(SignonHashStore) private readonly hashes: SignonHashStore,
  ) {}

  /** A new session for the person, and the single-use sign-on hash that comes with a login. */
  async open(personId: number): Promise<{ sessionId: string; hash: string }> {
    const sessionId = await this.sessions.create(this.tenant, personId);
    const hash = await this.hashes.issue(this.tenant, personId);
    return { sessionId, hash };
  }

  async logout(principal: Principal | null, ip: string): Promise<void> {
    if (principal?.sessionId) {
      await this.sessions.destroy(this.tenant, principal.sessionId);
      await this.record('logout', principal.userName, ip, {});
    }
  }

  /** `userName` as given (it may name nobody); `ip`: the client address as express resolves it with TRUST_PROXY. */
  record(type: LoginEventType, userName: string, ip: string, details: Record<string, unknown>): Promise<void> {
    return recordSecurityEvent(this.db, { type, actor: userName || 'anonymous', subject: userName, ip, details });
  }
}
