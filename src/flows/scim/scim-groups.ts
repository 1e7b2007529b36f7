import { inject, injectable } from 'tsyringe';
import { UnitOfWork, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ScimError, ScimLinks, normalizePatch, parseFilter, type ScimFilter } from '../../identity';
import { PersonChangeRecorder, PersonsRepository, type PersonRow } from '../../people';
import { PersonRolesStore, RoleAuthoring, RolesRepository, type RoleRow } from '../../catalogue';
import type { ScimCaller } from './scim-auth';
import { applyGroupPatch, groupFromResource, groupResource, type ScimGroupState } from './scim-group-resource';
import type { Json } from './scim-user-state';

// Roles are few per tenant (tens to hundreds): Groups are listed and filtered in memory.
const ALL_ROLES = { offset: 0, limit: 100_000 };

/**
 * SCIM /Groups on roles: a role is a Group (displayName its name, members the persons holding it,
 * externalId kept by identity's ScimLinks). POST creates a role (RoleAuthoring: audit role.created);
 * membership changes go person by person as DELETE/PUT /api/persons do (roles.changed audit,
 * person.updated webhook). DELETE takes the role from its holders and deletes it when SCIM created
 * it; a role made in the product stays (only its link to the IdP goes).
 */
@injectable()
export class ScimGroupsFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(RolesRepository) private readonly roles: RolesRepository,
    @inject(PersonRolesStore) private readonly holders: PersonRolesStore,
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(ScimLinks) private readonly links: ScimLinks,
  ) {}

  async list(q: { filter?: string; startIndex: number; count: number; members: boolean }, base: string): Promise<{ total: number; resources: Json[] }> {
    const filter = q.filter ? parseFilter(q.filter) : undefined;
    const all = await this.roles.list({}, ALL_ROLES);
    const links = await this.links.groups(all.map((r) => r.id));
    const matching: RoleRow[] = [];
    for (const r of all) if (!filter || (await this.matches(filter, r, links.get(r.id)?.external_id ?? null))) matching.push(r);
    const page = matching.slice(q.startIndex - 1, q.startIndex - 1 + q.count);
    const resources = await Promise.all(page.map((r) => this.present(r, links.get(r.id)?.external_id ?? null, q.members, base)));
    return { total: matching.length, resources };
  }

  async get(id: string, members: boolean, base: string): Promise<Json> {
    const role = await this.role(id);
    return this.present(role, (await this.links.groups([role.id])).get(role.id)?.external_id ?? null, members, base);
  }

  async create(caller: ScimCaller, body: unknown, base: string): Promise<Json> {
    const s = groupFromResource(body);
    const existing = (await this.roles.list({ term: s.displayName }, ALL_ROLES)).find((r) => r.name.toLowerCase() === s.displayName.toLowerCase());
    if (existing) throw new ScimError(409, `a Group (role) named "${s.displayName}" already exists: id ${existing.id}`, 'uniqueness');
    const people = await this.people(s.members ?? []);
    const role = await this.uow.run(async (tx) => {
      const r = await tx.get(RoleAuthoring).create(caller.principal, { name: s.displayName });
      await tx.get(ScimLinks).setGroup(r.id, { external_id: s.externalId, created_by_scim: true });
      await this.changeMembers(tx, caller.principal, r.id, people, []);
      return r;
    });
    return this.get(String(role.id), true, base);
  }

  async replace(caller: ScimCaller, id: string, body: unknown, base: string): Promise<Json> {
    return this.write(caller, await this.role(id), () => groupFromResource(body), base);
  }

  async patch(caller: ScimCaller, id: string, body: unknown, base: string): Promise<Json> {
    const ops = normalizePatch(body);
    return this.write(caller, await this.role(id), (before) => applyGroupPatch(before, ops), base);
  }

  async delete(caller: ScimCaller, id: string): Promise<void> {
    const role = await this.role(id);
    const link = (await this.links.groups([role.id])).get(role.id);
    const held = await this.people(await this.holders.holders(role.id));
    await this.uow.run(async (tx) => {
      await this.changeMembers(tx, caller.principal, role.id, [], held);
      if (link?.created_by_scim) await tx.get(RoleAuthoring).delete(caller.principal, role.id);
      else await tx.get(ScimLinks).dropGroup(role.id);
    });
  }

  private async write(caller: ScimCaller, role: RoleRow, change: (before: ScimGroupState) => ScimGroupState, base: string): Promise<Json> {
    const before: ScimGroupState = {
      displayName: role.name,
      externalId: (await this.links.groups([role.id])).get(role.id)?.external_id ?? null,
      members: await this.holders.holders(role.id),
    };
    const after = change(before);
    const added = await this.people((after.members ?? []).filter((m) => !before.members!.includes(m)));
    const removed = await this.people(before.members!.filter((m) => !(after.members ?? []).includes(m)));
    await this.uow.run(async (tx) => {
      if (after.displayName !== before.displayName) await tx.get(RoleAuthoring).update(caller.principal, role.id, { name: after.displayName });
      if (after.externalId !== before.externalId) await tx.get(ScimLinks).setGroup(role.id, { external_id: after.externalId });
      await this.changeMembers(tx, caller.principal, role.id, added, removed);
    });
    return this.get(String(role.id), true, base);
  }

  /** Each person's roles change as PUT/DELETE /api/persons change them: roles.changed audit and person.updated. */
  private async changeMembers(tx: Transaction, user: Principal, roleId: number, added: PersonRow[], removed: PersonRow[]): Promise<void> {
    const store = tx.get(PersonRolesStore);
    const recorder = tx.get(PersonChangeRecorder);
    for (const [person, add] of [...added.map((p) => [p, true] as const), ...removed.map((p) => [p, false] as const)]) {
      const before = await store.ids(person.id);
      if (add) await store.add(person.id, roleId);
      else await store.remove(person.id, [roleId]);
      const after = add ? [...before, roleId] : before.filter((r) => r !== roleId);
      await recorder.rolesChanged(user, person.user_name, before, after);
      if (before.includes(roleId) !== add) await recorder.updated(person, ['roles']);
    }
  }

  /** The persons of `ids`; 400 for an id that is no User. */
  private async people(ids: number[]): Promise<PersonRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.persons.search({ ids: [...new Set(ids)] }, { offset: 0, limit: ids.length });
    const missing = ids.filter((id) => !rows.some((r) => r.id === id));
    if (missing.length) throw ScimError.invalidValue(`member ${missing.join(', ')} is no User`);
    return rows;
  }

  private async role(id: string): Promise<RoleRow> {
    const row = /^\d{1,9}$/.test(id) ? await this.roles.byId(Number(id)) : undefined;
    if (!row) throw ScimError.notFound(`Group ${id}`);
    return row;
  }

  private async present(role: RoleRow, externalId: string | null, members: boolean, base: string): Promise<Json> {
    const ids = members ? await this.holders.holders(role.id) : undefined;
    const display = new Map<number, string>();
    if (ids?.length) for (const p of (await this.persons.search({ ids }, { offset: 0, limit: ids.length })).rows) display.set(p.id, p.user_name);
    return groupResource(role.id, { displayName: role.name, externalId, members: ids }, base, display);
  }

  private async matches(f: ScimFilter, role: RoleRow, externalId: string | null): Promise<boolean> {
    switch (f.op) {
      case 'and':
        return (await this.matches(f.left, role, externalId)) && this.matches(f.right, role, externalId);
      case 'or':
        return (await this.matches(f.left, role, externalId)) || this.matches(f.right, role, externalId);
      case 'not':
        return !(await this.matches(f.filter, role, externalId));
      case 'has':
        return this.matches(f.filter, role, externalId);
      default: {
        if (f.attr === 'members.value' || f.attr === 'members') {
          const held = await this.holders.holders(role.id);
          if (f.op === 'pr') return held.length > 0;
          if (f.op !== 'eq') throw ScimError.invalidFilter('members compares with eq or pr');
          return held.some((id) => String(id) === String(f.value));
        }
        const value = f.attr === 'displayname' ? role.name : f.attr === 'externalid' ? externalId : f.attr === 'id' ? String(role.id) : undefined;
        if (value === undefined && f.attr !== 'externalid')
          throw ScimError.invalidFilter(`filtering Groups on ${f.attr} is not supported (displayName, externalId, id, members.value)`);
        if (f.op === 'pr') return value !== null && value !== '';
        if (value === null || typeof f.value !== 'string') return f.op === 'ne';
        const caseExact = f.attr === 'externalid' || f.attr === 'id';
        const [a, b]: [string, string] = caseExact ? [value as string, f.value] : [(value as string).toLowerCase(), f.value.toLowerCase()];
        switch (f.op) {
          case 'eq':
            return a === b;
          case 'ne':
            return a !== b;
          case 'co':
            return a.includes(b);
          case 'sw':
            return a.startsWith(b);
          case 'ew':
            return a.endsWith(b);
          default:
            throw ScimError.invalidFilter(`${f.op} is not supported on Groups`);
        }
      }
    }
  }
}
