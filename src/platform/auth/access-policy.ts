import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../tokens';
import type { TenantDb } from '../tenancy/tenant-db';
import type { Principal } from './principal';
import { ApiError } from '../errors/api-error';

/**
 * One permission model for the whole API: a superuser may do everything in the tenant;
 * a manager acts on persons and organisations in the subtrees they manage; everyone
 * may act on themselves. Objects of other tenants never reach here (they are not found).
 */
@injectable()
export class AccessPolicy {
  private readonly managed = new Map<number, Promise<Set<number>>>();

  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** Organisation ids in the subtrees the person manages (empty for non-managers). */
  managedOrganisationIds(personId: number): Promise<Set<number>> {
    let ids = this.managed.get(personId);
    if (!ids) {
      ids = this.db
        .raw<{ rows: { id: number }[] }>(
          `with recursive sub(id) as (
             select organisation_id from ?? where person_id = ?
             union
             select o.id from ?? o join sub on o.parent_id = sub.id)
           select id from sub`,
          [this.db.ref('organisation_managers'), personId, this.db.ref('organisations')],
        )
        .then((r) => new Set(r.rows.map((row) => row.id)));
      this.managed.set(personId, ids);
    }
    return ids;
  }

  async isManager(user: Principal): Promise<boolean> {
    return (await this.managedOrganisationIds(user.personId)).size > 0;
  }

  async managesOrganisation(user: Principal, organisationId: number | null): Promise<boolean> {
    if (organisationId === null) return false;
    return (await this.managedOrganisationIds(user.personId)).has(organisationId);
  }

  /** Superuser, or manager of the person's organisation. */
  async canManagePerson(user: Principal, person: { id: number; organisation_id: number | null }): Promise<boolean> {
    if (user.superuser) return true;
    return this.managesOrganisation(user, person.organisation_id);
  }

  /** Security line "Superuser, person's manager, self". */
  async assertSelfOrManager(user: Principal, person: { id: number; organisation_id: number | null }, action = 'access this person'): Promise<void> {
    if (user.personId === person.id) return;
    if (await this.canManagePerson(user, person)) return;
    throw ApiError.forbidden(`not authorised to ${action}: only the person, their manager or a superuser may`);
  }

  /** Security line "Superuser, organisation's manager". */
  async assertManagesOrganisation(user: Principal, organisationId: number, action = 'access this organisation'): Promise<void> {
    if (user.superuser) return;
    if (await this.managesOrganisation(user, organisationId)) return;
    throw ApiError.forbidden(`not authorised to ${action}: only its manager or a superuser may`);
  }

  assertSuperuser(user: Principal, action = 'do this'): void {
    if (!user.superuser) throw ApiError.forbidden(`not authorised to ${action}: superusers only`);
  }
}
