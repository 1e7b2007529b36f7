import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../platform/tokens';
import type { TenantDb } from '../platform/tenancy/tenant-db';
import type { Principal } from '../platform/auth/principal';
import { AccessPolicy } from '../platform/auth/access-policy';
import { ApiError } from '../platform/errors/api-error';

export interface PersonRow {
  id: number;
  user_name: string;
  firstname: string | null;
  lastname: string | null;
  email: string | null;
  mobile: string | null;
  birthdate: string | null;
  organisation_id: number | null;
}

const COLUMNS = ['id', 'user_name', 'firstname', 'lastname', 'email', 'mobile', 'organisation_id', 'birthdate'];

/**
 * The person a call acts on: user_name when given, otherwise the caller. Used by the
 * event, sign-on, participant, survey and file features ("Superuser, manager, self").
 */
@injectable()
export class TargetPerson {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(AccessPolicy) private readonly access: AccessPolicy,
  ) {}

  async byUserName(userName: string): Promise<PersonRow> {
    const row = await this.db
      .table('persons')
      .where({ user_name: userName })
      .first([...COLUMNS.filter((c) => c !== 'birthdate'), this.db.raw('birthdate::text as birthdate')]);
    if (!row) throw ApiError.notFound(`person ${userName}`);
    return row;
  }

  async byId(id: number): Promise<PersonRow> {
    const row = await this.db
      .table('persons')
      .where({ id })
      .first([...COLUMNS.filter((c) => c !== 'birthdate'), this.db.raw('birthdate::text as birthdate')]);
    if (!row) throw ApiError.notFound(`person ${id}`);
    return row;
  }

  /** user_name or the caller, checked for "superuser, person's manager, self". */
  async resolve(user: Principal, userName: string | undefined, action: string): Promise<PersonRow> {
    const person = await this.named(user, userName);
    await this.access.assertSelfOrManager(user, person, action);
    return person;
  }

  /** As resolve, for a change made for the person: a manager acts only on persons they manage, never on their own manager. */
  async resolveForChange(user: Principal, userName: string | undefined, action: string): Promise<PersonRow> {
    const person = await this.named(user, userName);
    await this.access.assertSelfOrActingManager(user, person, action);
    return person;
  }

  private named(user: Principal, userName: string | undefined): Promise<PersonRow> {
    return userName ? this.byUserName(userName) : this.byId(user.personId);
  }
}
