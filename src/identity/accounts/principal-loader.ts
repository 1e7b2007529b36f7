import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Tenant } from '../../platform/tenancy/tenant';
import type { PasswordChangeReason, Principal } from '../../platform/auth/principal';
import { PrincipalCache } from '../../platform/auth/principal-cache';
import { passwordChangeReason } from '../../people';

export interface AccountRow {
  id: number;
  user_name: string;
  superuser: boolean;
  organisation_id: number | null;
  password_changed_at: Date | null;
  must_change_password: PasswordChangeReason | null;
}

/** The persons columns a Principal is built from. */
export const ACCOUNT_COLUMNS = ['id', 'user_name', 'superuser', 'organisation_id', 'password_changed_at', 'must_change_password'] as const;


/** Builds the request's Principal from a person of the request's tenant. */
@injectable()
export class PrincipalLoader {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(PrincipalCache) private readonly cache: PrincipalCache,
  ) {}

  private query() {
    return this.db.table<AccountRow>('persons').select(...ACCOUNT_COLUMNS);
  }

  async byId(personId: number, via: Principal['via'], sessionId?: string): Promise<Principal | null> {
    const row = await this.cache.get(this.tenant, personId, () => this.query().where({ id: personId }).first());
    return row ? this.toPrincipal(row, via, sessionId) : null;
  }

  toPrincipal(row: AccountRow, via: Principal['via'], sessionId?: string): Principal {
    return {
      personId: row.id,
      userName: row.user_name,
      superuser: row.superuser,
      organisationId: row.organisation_id,
      mustChangePassword: passwordChangeReason(row, this.tenant.config.get('password.max_age_days')),
      via,
      sessionId,
    };
  }
}
