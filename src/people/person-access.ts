import { inject, injectable } from 'tsyringe';
import type { Principal } from '../platform/auth/principal';
import { ApiError } from '../platform/errors/api-error';
import type { PersonKey, PersonRow } from './person-row';
import { PersonDirectory } from './person-directory';
import { OrganisationManagersRepository } from './organisations/organisation-managers.repository';

/** The person a call acts on, as the one target resolution hands it out. */
export const TARGET_COLUMNS = ['id', 'user_name', 'firstname', 'lastname', 'email', 'mobile', 'organisation_id', 'birthdate', 'deactivated_at'] as const;
export type TargetPerson = Pick<PersonRow, (typeof TARGET_COLUMNS)[number]>;

/**
 * Who may act on a person:
 *  - selfOrManager: the person, a manager of their organisation (or one above it), a superuser;
 *  - selfOrActingManager: as selfOrManager, but a manager only acts as the person's manager (canActAsManagerOf);
 *  - actingManager: only someone who may act as the person's manager, never the person themself;
 *  - selfOrSuperuser: the person or a superuser.
 */
export type PersonRule = 'selfOrManager' | 'selfOrActingManager' | 'actingManager' | 'selfOrSuperuser';

/** The Security line of each rule, as the route table and the OpenAPI document show it. */
export const PERSON_RULE_TEXT: Record<PersonRule, string> = {
  selfOrManager: "superuser, the person's manager, self",
  selfOrActingManager: "superuser, the person's manager (not for a person who manages the caller), self",
  actingManager: "superuser, the person's manager (not for themself, nor for a person who manages the caller)",
  selfOrSuperuser: 'superuser, self',
};

/**
 * The one permission model of the API, and the one place that decides "may the caller act on
 * this person": a superuser may do everything in the tenant; a manager acts on persons and
 * organisations in the subtrees they manage, but changes only as the manager of someone else
 * (canActAsManagerOf); everyone may act on themselves. Objects of other tenants never reach here
 * (they are not found). Route rules (policies) and object-level checks both call it.
 */
@injectable()
export class PersonAccess {
  private readonly managed = new Map<number, Promise<Set<number>>>();

  constructor(
    @inject(OrganisationManagersRepository) private readonly managers: Pick<OrganisationManagersRepository, 'managedBy'>,
    @inject(PersonDirectory) private readonly directory: Pick<PersonDirectory, 'find'>,
  ) {}

  /** The person a call acts on: `userName` when given, else the caller. Unknown: 404 (targetNotFound). */
  async target(user: Principal, userName: string | undefined, quoted = false): Promise<TargetPerson> {
    const person = await this.lookup(user, userName);
    if (!person) throw targetNotFound(user, userName, quoted);
    return person;
  }

  /** The person `userName` names (the caller when left out), or undefined. */
  lookup(user: Principal, userName: string | undefined): Promise<TargetPerson | undefined> {
    return this.find(personKey(user, userName));
  }

  find(key: PersonKey): Promise<TargetPerson | undefined> {
    return this.directory.find(key, TARGET_COLUMNS);
  }

  async allows(user: Principal, person: { id: number; organisation_id: number | null }, rule: PersonRule): Promise<boolean> {
    const self = user.personId === person.id;
    switch (rule) {
      case 'selfOrManager':
        return self || (await this.canManagePerson(user, person));
      case 'selfOrActingManager':
        return self || (await this.canActAsManagerOf(user, person));
      case 'actingManager':
        return this.canActAsManagerOf(user, person);
      case 'selfOrSuperuser':
        return self || user.superuser;
    }
  }

  /** 403 unless `rule` allows it; `action` completes "not authorised to ...". */
  async assert(user: Principal, person: { id: number; organisation_id: number | null }, rule: PersonRule, action: string): Promise<void> {
    if (await this.allows(user, person, rule)) return;
    throw ApiError.forbidden(denial(rule, action, user.personId === person.id));
  }

  /** Organisation ids in the subtrees the person manages (empty for non-managers). */
  managedOrganisationIds(personId: number): Promise<Set<number>> {
    let ids = this.managed.get(personId);
    if (!ids) this.managed.set(personId, (ids = this.managers.managedBy(personId)));
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

  /** Security line "Superuser, organisation's manager". */
  async assertManagesOrganisation(user: Principal, organisationId: number, action = 'access this organisation'): Promise<void> {
    if (user.superuser) return;
    if (await this.managesOrganisation(user, organisationId)) return;
    throw ApiError.forbidden(`not authorised to ${action}: only its manager or a superuser may`);
  }

  /** The spec's "superadmin": a person flag next to superuser, read when a rule needs it (it is not part of the cached principal). */
  async isSuperadmin(user: Principal): Promise<boolean> {
    const row = await this.directory.find({ id: user.personId }, ['superadmin']);
    return row?.superadmin === true;
  }
}

/** The person `userName` names, the caller when it is left out. */
export function personKey(user: Principal, userName: string | undefined): PersonKey {
  return userName === undefined ? { id: user.personId } : { user_name: userName };
}

/** The 404 of a person a call acts on; a person named in the route's path is the resource and is quoted (`person "kari" not found`). */
export function targetNotFound(user: Principal, userName: string | undefined, quoted: boolean): ApiError {
  return ApiError.notFound(quoted ? `person "${userName}"` : `person ${userName ?? user.personId}`);
}

function denial(rule: PersonRule, action: string, self: boolean): string {
  switch (rule) {
    case 'selfOrManager':
      return `not authorised to ${action}: only the person, their manager or a superuser may`;
    case 'selfOrActingManager':
      return `not authorised to ${action}: only the person, their manager (not someone they manage) or a superuser may`;
    case 'actingManager':
      return self
        ? `not authorised to ${action} for yourself: only your manager or a superuser may (a manager never acts as their own manager)`
        : `not authorised to ${action}: only the person's manager (not someone they manage) or a superuser may`;
    case 'selfOrSuperuser':
      return `not authorised to ${action}: only the person themself or a superuser may`;
  }
}
