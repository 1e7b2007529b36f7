import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { TenantDataCache } from '../../platform/cache/tenant-data-cache';
import { ACCOUNT_COLUMNS, PersonDirectory, deactivationText, isDeactivated, type AccountRow } from '../../people';
import { SwtRejected, identifierOf, type SwtIdentifier } from '../../identity';

/** Finds the existing person an SWT token names (identity reads the token, people has the person); users are never created on the fly. */
@injectable()
export class SwtUserFinder {
  constructor(
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TenantDataCache) private readonly cache: TenantDataCache,
  ) {}

  /**
   * The account row itself, so the principal needs no second query; unchanged accounts none at all
   * (TenantDataCache, fresh by the persons change notices). A deactivated person is refused.
   */
  async account(params: Map<string, string>): Promise<AccountRow> {
    const id = identifierOf(params, this.tenant);
    const row = await this.cache.get(this.tenant, `swt-account\u0000${id.kind}\u0000${id.value}`, () => this.find(id));
    if (isDeactivated(row)) throw new SwtRejected('user', deactivationText(row.user_name));
    return row;
  }

  /**
   * Accounts read before (the start-up's preload of recent persons), kept under the identifiers that
   * name one person by construction, user name and person id (an external id may name several: those
   * are left to the lookup, which refuses them), while `unchanged` says no person changed since they were read.
   */
  async remember(rows: readonly AccountRow[], unchanged: () => boolean): Promise<void> {
    for (const row of rows)
      for (const [kind, value] of [
        ['user_name', row.user_name],
        ['person_id', String(row.id)],
      ])
        if (unchanged()) await this.cache.get(this.tenant, `swt-account\u0000${kind}\u0000${value}`, () => Promise.resolve(row));
  }

  private async find(id: SwtIdentifier): Promise<AccountRow> {
    let rows: AccountRow[];
    if (id.kind === 'user_name') rows = await this.persons.findAll({ user_name: id.value }, ACCOUNT_COLUMNS, 2);
    else if (id.kind === 'person_id') {
      if (!/^\d{1,9}$/.test(id.value)) throw new SwtRejected('user', `${id.param} must be a person id (a positive integer)`);
      rows = await this.persons.findAll({ id: Number(id.value) }, ACCOUNT_COLUMNS, 2);
    } else rows = await this.persons.findAll({ extern_person_id: id.value }, ACCOUNT_COLUMNS, 2);
    if (rows.length === 0) throw new SwtRejected('user', `no user of this tenant matches ${id.param}`);
    if (rows.length > 1) throw new SwtRejected('user', `${id.param} matches more than one user of this tenant`);
    return rows[0];
  }
}
