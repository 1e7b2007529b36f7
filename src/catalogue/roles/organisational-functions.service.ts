import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import { UnitOfWork } from '../../platform/tenancy/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { OrganisationDirectory, PersonAccess, type TargetPerson } from '../../people';
import { RolesRepository } from './roles.repository';
import { AuditTrail } from '../../platform/audit/audit-trail';

interface FunctionRow {
  role_id: number;
  name: string;
  meta_type: string;
  defined_on: number;
}

/**
 * An organisational function is a role made available on an organisation
 * (organisation_roles); it is available in that organisation and everywhere below it.
 * Its id is the role id. Holding a function means holding the role (person_roles).
 */
@injectable()
export class OrganisationalFunctions {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(RolesRepository) private readonly roles: RolesRepository,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(OrganisationDirectory) private readonly organisations: OrganisationDirectory,
  ) {}

  async organisation(id: number): Promise<{ id: number; name: string }> {
    const org = await this.organisations.find(id);
    if (!org) throw ApiError.notFound(`organisation ${id}`);
    return org;
  }

  /** Functions available at the organisation (own and inherited), nearest definition first. */
  async available(organisationId: number, metaTypes?: string[]): Promise<FunctionRow[]> {
    const q = this.db
      .table('organisation_roles as orr')
      .join('roles as r', 'r.id', 'orr.role_id')
      .whereIn('orr.organisation_id', this.roles.ancestors([organisationId]) as any)
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

  /** organisation_id given: the functions of that unit (superuser, its manager, its members). */
  async ofOrganisation(user: Principal, organisationId: number, metaTypes?: string[]) {
    await this.organisation(organisationId);
    const member = user.organisationId !== null && (await this.isWithin(user.organisationId, organisationId));
    if (!member) await this.access.assertManagesOrganisation(user, organisationId, 'see the organisational functions of this organisation');
    return (await this.available(organisationId, metaTypes)).map((f) => this.present(f, organisationId));
  }

  /** No organisation_id: the functions a person holds in their own organisation. */
  async ofPerson(person: TargetPerson, metaTypes?: string[]) {
    if (person.organisation_id === null) return [];
    const held = new Set((await this.db.table('person_roles').where('person_id', person.id).select('role_id')).map((r: any) => r.role_id));
    return (await this.available(person.organisation_id, metaTypes)).filter((f) => held.has(f.role_id)).map((f) => this.present(f, person.organisation_id!, true));
  }

  /** update: the person takes on the function (their manager, superusers); off: gives it up (also self). */
  /**
   * `target`: the person as the route's rule resolved and allowed it (a manager acting on them);
   * none when the caller gives up their own function, which anyone may.
   */
  async setForPerson(user: Principal, target: TargetPerson | undefined, roleId: number, action: 'off' | 'update') {
    const person = target ?? (await this.access.target(user, undefined));
    const fn = person.organisation_id === null ? undefined : (await this.available(person.organisation_id)).find((f) => f.role_id === roleId);
    if (!fn) throw ApiError.notFound(`organisational function ${roleId} in ${person.user_name}'s organisation`);
    const key = { person_id: person.id, role_id: roleId };
    await this.uow.run(async (tx) => {
      const trx = tx.get(TENANT_DB);
      const changed =
        action === 'update'
          ? (await trx.table('person_roles').insert(key).onConflict(['person_id', 'role_id']).ignore().returning('role_id')).length
          : await trx.table('person_roles').where(key).delete();
      if (!changed) return;
      const details = { added: action === 'update' ? [roleId] : [], removed: action === 'off' ? [roleId] : [], via: 'organisationalfunction' };
      await tx.get(AuditTrail).record({ type: 'roles.changed', actor: user.userName, subject: person.user_name, details });
    });
    return this.present(fn, person.organisation_id!, action === 'update');
  }

  /** PUT/DELETE /organisations/:id/organisationalfunctions (the route lets superusers and the organisation's managers in). */
  async change(organisationId: number, roleIds: number[], add: boolean) {
    const found = await this.roles.byIds(roleIds);
    const unknown = roleIds.filter((id) => !found.some((r) => r.id === id));
    if (unknown.length) throw ApiError.notFound(`organisational function (role) ${unknown.join(', ')}`);
    const rows = roleIds.map((role_id) => ({ organisation_id: organisationId, role_id }));
    if (add) await this.db.table('organisation_roles').insert(rows).onConflict(['organisation_id', 'role_id']).ignore();
    else await this.db.table('organisation_roles').where('organisation_id', organisationId).whereIn('role_id', roleIds).delete();
    return (await this.available(organisationId)).map((f) => this.present(f, organisationId));
  }

  private async isWithin(orgId: number, ancestorId: number): Promise<boolean> {
    const r = (await this.roles.ancestors([orgId])) as unknown as { rows: { id: number }[] };
    return r.rows.some((a) => a.id === ancestorId);
  }
}
