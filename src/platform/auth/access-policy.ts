import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../tokens';
import type { TenantDb } from '../tenancy/tenant-db';
import type { Principal } from './principal';
import { ApiError } from '../errors/api-error';

/**
 * One permission model for the whole API: a superuser may do everything in the tenant;
 * a manager acts on persons and organisations in the subtrees they manage, but changes
 * only as the manager of someone else (canActAsManagerOf); everyone may act on themselves. Objects of other tenants never reach here (they are not found).
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

  /**
   * The person manages the caller: a manager of the caller's organisation or of one above it, a
   * co-manager too. Not when everything the person manages lies strictly inside what the caller
   * manages: that is a manager below the caller (e.g. the caller sits in a unit under the one they manage).
   */
  async managesCaller(user: Principal, personId: number): Promise<boolean> {
    if (user.organisationId === null) return false;
    const theirs = await this.managedOrganisationIds(personId);
    if (!theirs.has(user.organisationId)) return false;
    const mine = await this.managedOrganisationIds(user.personId);
    return !(theirs.size < mine.size && [...theirs].every((id) => mine.has(id)));
  }

  /**
   * Superuser, or the person's manager acting on someone else. A manager never acts as their own
   * manager: not on themself (a manager usually sits in the organisation they manage), nor on a
   * person who manages them, else they could give themselves roles or take over their boss's account.
   */
  async canActAsManagerOf(user: Principal, person: { id: number; organisation_id: number | null }): Promise<boolean> {
    if (user.superuser) return true;
    if (user.personId === person.id || !(await this.managesOrganisation(user, person.organisation_id))) return false;
    return !(await this.managesCaller(user, person.id));
  }

  async assertActsAsManagerOf(user: Principal, person: { id: number; organisation_id: number | null }, action: string): Promise<void> {
    if (await this.canActAsManagerOf(user, person)) return;
    throw ApiError.forbidden(
      user.personId === person.id
        ? `not authorised to ${action} for yourself: only your manager or a superuser may (a manager never acts as their own manager)`
        : `not authorised to ${action}: only the person's manager (not someone they manage) or a superuser may`,
    );
  }

  /** A change to a person: the person themself, or someone who may act as their manager. */
  async assertSelfOrActingManager(user: Principal, person: { id: number; organisation_id: number | null }, action: string): Promise<void> {
    if (user.personId === person.id) return;
    if (await this.canActAsManagerOf(user, person)) return;
    throw ApiError.forbidden(`not authorised to ${action}: only the person, their manager (not someone they manage) or a superuser may`);
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

  /** The spec's "superadmin": a person flag next to superuser, read when a rule needs it (it is not part of the cached principal). */
  async isSuperadmin(user: Principal): Promise<boolean> {
    const row = await this.db.table('persons').where({ id: user.personId }).first('superadmin');
    return row?.superadmin === true;
  }

  /** Security "superuser and superadmin only". */
  async assertSuperuserOrSuperadmin(user: Principal, action: string): Promise<void> {
    if (user.superuser || (await this.isSuperadmin(user))) return;
    throw ApiError.forbidden(`not authorised to ${action}: superusers and superadmins only`);
  }

  assertSuperuser(user: Principal, action = 'do this'): void {
    if (!user.superuser) throw ApiError.forbidden(`not authorised to ${action}: superusers only`);
  }
}
