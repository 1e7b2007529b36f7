import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit/audit-trail';
import { RolesRepository } from './roles.repository';

export interface FunctionRow {
  role_id: number;
  name: string;
  meta_type: string;
  defined_on: number;
}

/**
 * An organisational function is a role made available on an organisation
 * (organisation_roles); it is available in that organisation and everywhere below it.
 * Its id is the role id. Holding a function means holding the role (person_roles).
 * Which organisations lie above which is the people module's: callers pass them as a sub-query.
 */
@injectable()
export class OrganisationalFunctions {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(RolesRepository) private readonly roles: RolesRepository,
  ) {}

  /**
   * Functions available at an organisation, made available on it or above it: `organisationAndAbove`
   * is a sub-query of their ids. Ordered by name.
   */
  async available(organisationAndAbove: Knex.QueryBuilder | Knex.Raw, metaTypes?: string[]): Promise<FunctionRow[]> {
    const q = this.db
      .table('organisation_roles as orr')
      .join('roles as r', 'r.id', 'orr.role_id')
      .whereIn('orr.organisation_id', organisationAndAbove as any)
      .select('r.id as role_id', 'r.name', 'r.meta_type', this.db.raw('min(orr.organisation_id) as defined_on'))
      .groupBy('r.id', 'r.name', 'r.meta_type')
      .orderBy('r.name');
    if (metaTypes) q.whereIn('r.meta_type', metaTypes);
    return q;
  }

  present(f: FunctionRow, organisationId: number, held?: boolean) {
    return {
      organisationalfunction_id: f.role_id,
      role_id: f.role_id,
      name: f.name,
      meta_type: f.meta_type,
      organisation_id: organisationId,
      inherited: f.defined_on !== organisationId,
      ...(held === undefined ? {} : { held }),
    };
  }

  /** Ids of the roles the person holds. */
  async heldBy(personId: number): Promise<Set<number>> {
    return new Set((await this.db.table('person_roles').where('person_id', personId).select('role_id')).map((r: any) => r.role_id));
  }

  /**
   * update: the person takes on the function `fn` (available in their organisation `organisationId`);
   * off: gives it up. A change is audited (roles.changed).
   */
  async setForPerson(actor: Principal, person: { id: number; user_name: string }, fn: FunctionRow, organisationId: number, action: 'off' | 'update') {
    const roleId = fn.role_id;
    const key = { person_id: person.id, role_id: roleId };
    await this.uow.run(async (tx) => {
      const trx = tx.get(TENANT_DB);
      const changed =
        action === 'update'
          ? (await trx.table('person_roles').insert(key).onConflict(['person_id', 'role_id']).ignore().returning('role_id')).length
          : await trx.table('person_roles').where(key).delete();
      if (!changed) return;
      const details = { added: action === 'update' ? [roleId] : [], removed: action === 'off' ? [roleId] : [], via: 'organisationalfunction' };
      await tx.get(AuditTrail).record({ type: 'roles.changed', actor: actor.userName, subject: person.user_name, details });
    });
    return this.present(fn, organisationId, action === 'update');
  }

  /** Makes the roles available on the organisation (add) or takes them back; unknown roles are a 404. */
  async change(organisationId: number, roleIds: number[], add: boolean): Promise<void> {
    const found = await this.roles.byIds(roleIds);
    const unknown = roleIds.filter((id) => !found.some((r) => r.id === id));
    if (unknown.length) throw ApiError.notFound(`organisational function (role) ${unknown.join(', ')}`);
    const rows = roleIds.map((role_id) => ({ organisation_id: organisationId, role_id }));
    if (add) await this.db.table('organisation_roles').insert(rows).onConflict(['organisation_id', 'role_id']).ignore();
    else await this.db.table('organisation_roles').where('organisation_id', organisationId).whereIn('role_id', roleIds).delete();
  }
}
