import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../platform/tokens';
import type { TenantDb } from '../platform/tenancy/tenant-db';
import type { Tenant } from '../platform/tenancy/tenant';
import { ApiError } from '../platform/errors/api-error';
import { verifyAgainstDummy, verifyPassword } from '../platform/auth/password-hasher';
import { SessionStore } from './session-store';
import { SignonHashStore } from './signon-hash-store';
import { PrincipalLoader, type AccountRow } from './principal-loader';

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
  ) {}

  async login(userName: string, password: string): Promise<LoginResult> {
    const row = await this.db
      .table<AccountRow & { password_hash: string | null; pending_password_hash?: string | null }>('persons')
      .where({ user_name: userName })
      .first();
    const ok = row ? await verifyPassword(row.password_hash, password) : await verifyAgainstDummy(password);
    if (!row || !ok) throw new ApiError(401, 'wrong user name or password');
    const sessionId = await this.sessions.create(this.tenant, row.id);
    const hash = await this.hashes.issue(this.tenant, row.id);
    const principal = this.principals.toPrincipal(row, 'session', sessionId);
    return { sessionId, hash, personId: row.id, userName: row.user_name, mustChangePassword: principal.mustChangePassword !== null };
  }

  async logout(sessionId: string | undefined): Promise<void> {
    if (sessionId) await this.sessions.destroy(this.tenant, sessionId);
  }
}
