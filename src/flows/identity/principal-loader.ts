import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { Principal } from '../../platform/auth/principal';
import { PrincipalCache } from '../../platform/auth/principal-cache';
import type { PersonPreloader } from '../../platform/lifecycle/recent-persons';
import { SwtUserFinder } from './swt-user-finder';
import { ACCOUNT_COLUMNS, PersonDirectory, accountDeactivated, isDeactivated, passwordChangeReason, type AccountRow } from '../../people';

/**
 * Builds the request's Principal from a person of the request's tenant. The account row comes
 * from PrincipalCache when it can (principal-cache.ts: pushed invalidation), so a logged-in
 * request reads no person before its own work. A deactivated account is a 401 naming it.
 */
@injectable()
export class PrincipalLoader {
  constructor(
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(PrincipalCache) private readonly cache: PrincipalCache,
  ) {}

  async byId(personId: number, via: Principal['via'], sessionId?: string): Promise<Principal | null> {
    const row = await this.cache.get(this.tenant, personId, () => this.persons.find({ id: personId }, ACCOUNT_COLUMNS));
    // A deactivation ends the sessions after its commit; should one outlive that (Redis away), the
    // account itself refuses it. The cached row goes on every process at the commit (principal_changed).
    if (row && isDeactivated(row)) throw accountDeactivated(row.user_name);
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

/** The start-up's preload of recent persons (src/platform/lifecycle/recent-persons.ts): their account rows, one statement per tenant. */
export const principalPreloader: PersonPreloader = {
  name: 'account rows',
  async preload(scope, personIds) {
    const cache = scope.resolve(PrincipalCache);
    const generation = cache.currentGeneration;
    const rows = await scope.resolve(PersonDirectory).findByIds(personIds, ACCOUNT_COLUMNS);
    const tenant = scope.resolve<Tenant>(TENANT);
    for (const row of rows) cache.put(tenant, row.id, row, generation);
    // what an SWT request looks its account up by (sessions and API clients by id, above)
    await scope.resolve(SwtUserFinder).remember(rows, () => cache.currentGeneration === generation);
  },
};
