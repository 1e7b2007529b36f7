import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { OrganisationDirectory, PersonAccess, organisationAncestors, type TargetPerson } from '../../people';
import { OrganisationalFunctions } from '../../catalogue';

/**
 * Organisational functions (GET|PUT /organisationalfunctions, PUT|DELETE
 * /organisations/:id/organisationalfunctions): the catalogue keeps which roles are made available
 * where and who holds them; people knows the organisation tree and who may act on whom. A function
 * made available on an organisation is available below it: the catalogue gets the organisation and
 * those above it as a sub-query (one statement, as before).
 */
@injectable()
export class OrganisationalFunctionsFlow {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(OrganisationalFunctions) private readonly functions: OrganisationalFunctions,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(OrganisationDirectory) private readonly organisations: OrganisationDirectory,
  ) {}

  /** organisation_id given: the functions of that unit (superuser, its manager, its members and those below). */
  async ofOrganisation(user: Principal, organisationId: number, metaTypes?: string[]) {
    if (!(await this.organisations.find(organisationId))) throw ApiError.notFound(`organisation ${organisationId}`);
    const member = user.organisationId !== null && (await this.isWithin(user.organisationId, organisationId));
    if (!member) await this.access.assertManagesOrganisation(user, organisationId, 'see the organisational functions of this organisation');
    return (await this.availableAt(organisationId, metaTypes)).map((f) => this.functions.present(f, organisationId));
  }

  /** No organisation_id: the functions a person holds in their own organisation. */
  async ofPerson(person: TargetPerson, metaTypes?: string[]) {
    if (person.organisation_id === null) return [];
    const held = await this.functions.heldBy(person.id);
    return (await this.availableAt(person.organisation_id, metaTypes))
      .filter((f) => held.has(f.role_id))
      .map((f) => this.functions.present(f, person.organisation_id!, true));
  }

  /**
   * update: the person takes on the function (their manager, superusers); off: gives it up (also self).
   * `target`: the person as the route's rule resolved and allowed it (a manager acting on them);
   * none when the caller gives up their own function, which anyone may.
   */
  async setForPerson(user: Principal, target: TargetPerson | undefined, roleId: number, action: 'off' | 'update') {
    const person = target ?? (await this.access.target(user, undefined));
    const fn = person.organisation_id === null ? undefined : (await this.availableAt(person.organisation_id)).find((f) => f.role_id === roleId);
    if (!fn) throw ApiError.notFound(`organisational function ${roleId} in ${person.user_name}'s organisation`);
    return this.functions.setForPerson(user, person, fn, person.organisation_id!, action);
  }

  /** Makes roles available on the organisation (add) or takes them back; answers its functions after the change. */
  async change(organisationId: number, roleIds: number[], add: boolean) {
    await this.functions.change(organisationId, roleIds, add);
    return (await this.availableAt(organisationId)).map((f) => this.functions.present(f, organisationId));
  }

  private availableAt(organisationId: number, metaTypes?: string[]) {
    return this.functions.available(organisationAncestors(this.db, [organisationId]), metaTypes);
  }

  /** The organisation `organisationId` is `ancestorId` or lies below it. */
  private async isWithin(organisationId: number, ancestorId: number): Promise<boolean> {
    const { rows } = (await organisationAncestors(this.db, [organisationId])) as unknown as { rows: { id: number }[] };
    return rows.some((a) => a.id === ancestorId);
  }
}
