import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { ScimError, ScimLinks, normalizePatch, parseFilter } from '../../identity';
import { OrganisationsRepository, PersonUpdateData, PersonsRepository, type PersonCondition, type PersonRow } from '../../people';
import { CreatePersonFlow } from '../persons/create-person';
import { UpdatePersonFlow } from '../persons/update-person';
import { PersonLifecycleFlow } from '../persons/person-lifecycle';
import type { ScimCaller } from './scim-auth';
import { stateFromResource, stateOfPerson, userResource, type Json, type ScimUserState } from './scim-user-state';
import { applyUserPatch } from './scim-user-patch';
import { userCondition } from './scim-user-filter';

/** SCIM attribute of each person_data field, for the 400's detail. */
const ATTRIBUTE_OF: Record<string, string> = {
  user_name: 'userName',
  firstname: 'name.givenName',
  lastname: 'name.familyName',
  email: 'emails',
  mobile: 'phoneNumbers (mobile)',
  jobtitle: 'title',
  extern_person_id: 'externalId',
  employee_code: 'employeeNumber',
  language: 'preferredLanguage',
};

/** person_data of a state: null as "" (the API's "clear it"), mobile without the punctuation IdPs add. */
function personData(s: ScimUserState): Record<string, string> {
  return {
    user_name: s.userName,
    firstname: s.givenName ?? '',
    lastname: s.familyName ?? '',
    email: (s.email ?? '').toLowerCase(),
    mobile: (s.mobile ?? '').replace(/[\s().-]/g, ''),
    jobtitle: s.title ?? '',
    extern_person_id: s.externalId ?? '',
    employee_code: s.employeeNumber ?? '',
    language: s.preferredLanguage ?? '',
  };
}

/** Checked as POST/PUT /api/persons check person_data; a problem is a 400 invalidValue naming the SCIM attribute. */
function checked(data: Record<string, string>): Record<string, unknown> {
  const r = PersonUpdateData.safeParse(data);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = String(issue.path[0]);
  throw ScimError.invalidValue(`${ATTRIBUTE_OF[field] ?? field} ${issue.message}`);
}

const sameText = (a: string | null, b: string | null) => (a ?? '').toLowerCase() === (b ?? '').toLowerCase();

/**
 * SCIM /Users (RFC 7644) on persons: POST through CreatePersonFlow (audit, person.created), PUT and
 * PATCH through UpdatePersonFlow (audit, notices, person.updated) with only what changed, `active`
 * through PersonLifecycleFlow (deactivate: login, sessions and SWT end at once, person.deactivated;
 * reactivate), DELETE deactivates (the history stays). `department` moves the person to the
 * organisation it names (extern_organisation_id, then name), else to the client's default one.
 */
@injectable()
export class ScimUsersFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(OrganisationsRepository) private readonly organisations: OrganisationsRepository,
    @inject(ScimLinks) private readonly links: ScimLinks,
    @inject(PersonLifecycleFlow) private readonly lifecycle: PersonLifecycleFlow,
  ) {}

  async list(q: { filter?: string; startIndex: number; count: number }, base: string): Promise<{ total: number; resources: Json[] }> {
    const c: PersonCondition = q.filter ? userCondition(parseFilter(q.filter)) : { always: true };
    const { total, rows } = await this.persons.search(c, { offset: q.startIndex - 1, limit: q.count });
    return { total, resources: await this.present(rows, base) };
  }

  async get(id: string, base: string): Promise<Json> {
    return (await this.present([await this.person(id)], base))[0];
  }

  async create(caller: ScimCaller, body: unknown, base: string, log: Logger): Promise<Json> {
    const s = stateFromResource(body);
    await this.assertUnique(s.userName);
    const organisationId = (await this.organisationFor(caller, s.department)) ?? caller.client.scim_default_organisation_id;
    if (organisationId === null) {
      throw ScimError.invalidValue(
        'the person needs an organisation: send a department naming one (by external id or name), or give the API client a scim_default_organisation_id',
      );
    }
    const data = Object.fromEntries(Object.entries(checked(personData(s))).filter(([, v]) => v !== null));
    const person = await this.uow.run(async (tx) => {
      const { person: created } = await tx.get(CreatePersonFlow).create(caller.principal, { organisation_id: organisationId, person_data: data as never }, log);
      if (s.manager !== null) await tx.get(ScimLinks).setManager(created.id, s.manager);
      return created;
    });
    const final = s.active ? person : (await this.lifecycle.deactivate(caller.principal, person, 'scim')).person;
    return (await this.present([final], base))[0];
  }

  /** PUT: the resource replaces the user's attributes; `active` and `department` left out stay as they are. */
  async replace(caller: ScimCaller, id: string, body: unknown, base: string, ip: string): Promise<Json> {
    const person = await this.person(id);
    const before = await this.state(person);
    return this.write(caller, person, before, stateFromResource(body, before), base, ip);
  }

  async patch(caller: ScimCaller, id: string, body: unknown, base: string, ip: string): Promise<Json> {
    const ops = normalizePatch(body);
    const person = await this.person(id);
    const before = await this.state(person);
    return this.write(caller, person, before, applyUserPatch(before, ops), base, ip);
  }

  /** DELETE deactivates: the person, their history and registrations stay (a later POST of the same userName is a 409). */
  async delete(caller: ScimCaller, id: string): Promise<void> {
    await this.lifecycle.deactivate(caller.principal, await this.person(id), 'scim');
  }

  private async write(caller: ScimCaller, person: PersonRow, before: ScimUserState, after: ScimUserState, base: string, ip: string): Promise<Json> {
    if (!after.active && before.active) {
      await this.update(caller, person, before, after, ip);
      await this.lifecycle.deactivate(caller.principal, person, 'scim');
    } else {
      if (after.active && !before.active) await this.lifecycle.reactivate(caller.principal, person, 'scim');
      await this.update(caller, person, before, after, ip);
    }
    return this.get(String(person.id), base);
  }

  private async update(caller: ScimCaller, person: PersonRow, before: ScimUserState, after: ScimUserState, ip: string): Promise<void> {
    const was = personData(before);
    const raw: Record<string, string> = {};
    for (const [k, v] of Object.entries(personData(after))) if (v !== was[k]) raw[k] = v;
    // only what changed is checked: an old value the API would refuse today does not block other changes
    const changes = Object.keys(raw).length ? checked(raw) : {};
    if (changes.user_name !== undefined) await this.assertUnique(after.userName, person.id);
    let organisationId: number | undefined;
    if (!sameText(before.department, after.department) && after.department !== null) {
      const target = (await this.organisationFor(caller, after.department)) ?? caller.client.scim_default_organisation_id;
      if (target !== null && target !== person.organisation_id) organisationId = target;
    }
    const fresh = Object.keys(changes).length || organisationId !== undefined ? await this.person(String(person.id)) : person;
    await this.uow.run(async (tx) => {
      if (Object.keys(changes).length || organisationId !== undefined) {
        await tx.get(UpdatePersonFlow).update(caller.principal, fresh, { person_data: changes, organisation_id: organisationId }, ip);
      }
      if (before.manager !== after.manager) await tx.get(ScimLinks).setManager(person.id, after.manager);
    });
  }

  /** The organisation `department` names: by extern_organisation_id, then by name; undefined when none (or no department). */
  private async organisationFor(_caller: ScimCaller, department: string | null): Promise<number | undefined> {
    if (department === null) return undefined;
    return (await this.organisations.byExternalIdOrName(department))?.id;
  }

  /** 409 uniqueness: userName compares case-insensitively (RFC 7643 §4.1.1). */
  private async assertUnique(userName: string, exceptId?: number): Promise<void> {
    const { rows } = await this.persons.search({ column: 'user_name', op: 'eq', value: userName }, { offset: 0, limit: 2 });
    if (rows.some((r) => r.id !== exceptId)) throw new ScimError(409, `userName "${userName}" is already taken`, 'uniqueness');
  }

  private async person(id: string): Promise<PersonRow> {
    const row = /^\d{1,9}$/.test(id) ? await this.persons.find({ id: Number(id) }) : undefined;
    if (!row) throw ScimError.notFound(`User ${id}`);
    return row;
  }

  private async state(p: PersonRow): Promise<ScimUserState> {
    const org = p.organisation_id === null ? undefined : await this.organisations.findById(p.organisation_id);
    return stateOfPerson(p, org?.name ?? null, (await this.links.managers([p.id])).get(p.id) ?? null);
  }

  private async present(rows: PersonRow[], base: string): Promise<Json[]> {
    const orgIds = [...new Set(rows.map((r) => r.organisation_id).filter((x): x is number => x !== null))];
    const orgs = new Map((orgIds.length ? await this.organisations.list({ ids: orgIds }, { offset: 0, limit: orgIds.length }) : []).map((o) => [o.id, o.name]));
    const managers = await this.links.managers(rows.map((r) => r.id));
    return rows.map((r) =>
      userResource(r, stateOfPerson(r, r.organisation_id === null ? null : (orgs.get(r.organisation_id) ?? null), managers.get(r.id) ?? null), base),
    );
  }
}
