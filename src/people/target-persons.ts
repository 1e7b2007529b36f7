import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../platform/tokens';
import type { TenantDb } from '../platform/tenancy/tenant-db';
import type { Principal } from '../platform/auth/principal';
import { AccessPolicy } from '../platform/auth/access-policy';
import { ApiError } from '../platform/errors/api-error';

export interface PersonTarget {
  id: number;
  user_name: string;
  organisation_id: number | null;
  password_hash: string | null;
  isSelf: boolean;
  /** The caller is a superuser or manages the person's organisation (enough to read). */
  managedByCaller: boolean;
  /** The caller may use manager-only powers on the person (AccessPolicy.canActAsManagerOf): never on themself or their own manager. */
  asManager: boolean;
}

/** The person a call is about: `user_name` when given, else the caller ("Superuser, person's manager, self"). */
@injectable()
export class TargetPersons {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(AccessPolicy) private readonly policy: AccessPolicy,
  ) {}

  async find(user: Principal, userName: string | undefined): Promise<PersonTarget> {
    const name = userName ?? user.userName;
    const row = await this.db.table('persons').where({ user_name: name }).select('id', 'user_name', 'organisation_id', 'password_hash').first();
    if (!row) throw ApiError.notFound(`person ${name}`);
    const [managedByCaller, asManager] = await Promise.all([this.policy.canManagePerson(user, row), this.policy.canActAsManagerOf(user, row)]);
    return { ...row, isSelf: row.id === user.personId, managedByCaller, asManager };
  }

  /** Self, the person's manager or a superuser; anyone else gets 403. */
  async accessible(user: Principal, userName: string | undefined, action: string): Promise<PersonTarget> {
    const person = await this.find(user, userName);
    if (!person.isSelf && !person.managedByCaller) {
      throw ApiError.forbidden(`not authorised to ${action} of ${person.user_name}: only the person, their manager or a superuser may`);
    }
    return person;
  }
}
