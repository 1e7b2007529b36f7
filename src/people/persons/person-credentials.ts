import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { ACCOUNT_COLUMNS, type AccountRow } from '../person-row';
import type { PendingPasswordRow } from './pending-passwords';

/** What a login checks of a person: the account, the password hash and the pending (mailed) passwords. */
export type LoginRow = AccountRow & PendingPasswordRow & { password_hash: string | null };

const PENDING_COLUMNS = ['pending_password_hash', 'pending_password_expires_at', 'pending_password_earlier'] as const;

/**
 * The credential columns of persons, which PersonRow never carries: only code that checks a
 * password reads them, through here.
 */
@injectable()
export class PersonCredentials {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  forLogin(userName: string): Promise<LoginRow | undefined> {
    return this.db
      .table('persons')
      .where({ user_name: userName })
      .first([...ACCOUNT_COLUMNS, 'password_hash', ...PENDING_COLUMNS]);
  }

  async passwordHash(personId: number): Promise<string | null> {
    const row = await this.db.table('persons').select('password_hash').where({ id: personId }).first();
    return row?.password_hash ?? null;
  }
}
