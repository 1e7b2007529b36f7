import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenancy/tenant';
import { SwtRejected } from './swt-token';
import { ACCOUNT_COLUMNS, PersonDirectory, type AccountRow } from '../../people';
import { TenantDataCache } from '../../platform/cache/tenant-data-cache';

type Identifier = { kind: 'user_name' | 'person_id' | 'extern_person_id'; param: string; value: string };

const unique = (names: string[]) => [...new Set(names)];

/**
 * Picks the parameter that names the user: first a user name (configured key, username,
 * user_name), then a person id, then an external person id. A signed token is trusted, so
 * the first one present decides; the others are not cross-checked.
 */
export function identifierOf(params: Map<string, string>, tenant: Tenant): Identifier {
  const cfg = tenant.config;
  const groups: [Identifier['kind'], string[]][] = [
    ['user_name', unique([cfg.get('api.oauth.user_name_key'), 'username', 'user_name'])],
    ['person_id', unique([cfg.get('api.oauth.person_id_key'), 'person_id'])],
    ['extern_person_id', unique([cfg.get('api.oauth.extern_person_id_key'), 'external_person_id'])],
  ];
  for (const [kind, names] of groups) {
    for (const param of names) {
      const value = params.get(param);
      if (value !== undefined && value !== '') return { kind, param, value };
    }
  }
  const all = groups.flatMap(([, names]) => names).join(', ');
  throw new SwtRejected('user', `the token names no user (expected one of: ${all})`);
}

/** Finds the existing person an SWT token names; users are never created on the fly. */
@injectable()
export class SwtUserFinder {
  constructor(
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TenantDataCache) private readonly cache: TenantDataCache,
  ) {}

  /** The account row itself, so the principal needs no second query; unchanged accounts none at all (TenantDataCache). */
  async account(params: Map<string, string>): Promise<AccountRow> {
    const id = identifierOf(params, this.tenant);
    return this.cache.get(this.tenant, `swt-account\u0000${id.kind}\u0000${id.value}`, () => this.find(id));
  }

  private async find(id: Identifier): Promise<AccountRow> {
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
