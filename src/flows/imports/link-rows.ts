import { z } from 'zod';
import { inject, injectable } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { p } from '../../platform/http/param-types';
import { OrganisationAuthoring, OrganisationManagersRepository, OrganisationsRepository, PersonChangeRecorder, PersonsRepository } from '../../people';
import { PersonRolesStore } from '../../catalogue';
import {
  OrganisationsOfBatch,
  PersonsOfBatch,
  SeenKeys,
  cell,
  eachLine,
  fail,
  parseOrFail,
  type Checked,
  type ImportCaller,
  type ImportLine,
  type ImportRows,
} from './import-rows';

/**
 * Lines of a managers import: the person becomes a manager of the organisation as PUT
 * /api/organisations/[id]/managers makes them (OrganisationAuthoring.addManager: manager.added in the
 * audit log; their rights change with their next request). See IMPORT_COLUMNS.managers.
 */
@injectable()
export class ManagerImportRows implements ImportRows {
  private caller!: ImportCaller;
  private readonly seen = new SeenKeys();

  constructor(
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(OrganisationsRepository) private readonly organisations: OrganisationsRepository,
    @inject(OrganisationManagersRepository) private readonly managers: OrganisationManagersRepository,
  ) {}

  start(caller: ImportCaller): void {
    this.caller = caller;
  }

  async check(lines: readonly ImportLine[]): Promise<Checked[]> {
    const [persons, organisations] = await Promise.all([PersonsOfBatch.read(this.persons, lines), OrganisationsOfBatch.read(this.organisations, lines)]);
    const ids = lines.map((l) => safely(() => persons.find(l)?.id)).filter((id): id is number => id !== undefined);
    const managed = await this.managers.managedDirectly(ids);
    const { user } = this.caller;
    return eachLine(lines, (l) => {
      const person = persons.require(l);
      const organisationId = organisations.resolve(l);
      if (organisationId === undefined) fail(l.line, 'organisation_id', ApiError.missing('organisation_id'));
      this.seen.claim(l.line, 'organisation_id', `${person.id}:${organisationId}`, `manager "${person.user_name}" of organisation ${organisationId}`);
      if (managed.get(person.id)?.has(organisationId)) return { line: l.line, outcome: 'unchanged' };
      return {
        line: l.line,
        outcome: 'created',
        write: async (tx) => {
          await tx.get(OrganisationAuthoring).addManager(user, organisationId, person.user_name);
        },
      };
    });
  }
}

const RoleId = z.object({ role_id: p.id() });

/**
 * Lines of a role_assignments import: the person gets the role as PUT /api/persons with role_ids
 * would give it (roles.changed in the audit log, person.updated with changed [roles]). See
 * IMPORT_COLUMNS.role_assignments.
 */
@injectable()
export class RoleAssignmentImportRows implements ImportRows {
  private caller!: ImportCaller;
  private readonly seen = new SeenKeys();
  private readonly knownRoles = new Set<number>();

  constructor(
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(PersonRolesStore) private readonly roles: PersonRolesStore,
  ) {}

  start(caller: ImportCaller): void {
    this.caller = caller;
  }

  async check(lines: readonly ImportLine[]): Promise<Checked[]> {
    const persons = await PersonsOfBatch.read(this.persons, lines);
    const ids = lines.map((l) => safely(() => persons.find(l)?.id)).filter((id): id is number => id !== undefined);
    const held = await this.roles.idsOf(ids);
    const asked = [
      ...new Set(lines.map((l) => Number(cell(l, 'role_id'))).filter((n) => Number.isInteger(n) && n > 0 && n <= 2147483647 && !this.knownRoles.has(n))),
    ];
    const missing = new Set(await this.roles.missing(asked));
    for (const id of asked) if (!missing.has(id)) this.knownRoles.add(id);
    const { user } = this.caller;
    return eachLine(lines, (l) => {
      const person = persons.require(l);
      const raw = cell(l, 'role_id');
      if (raw === undefined) fail(l.line, 'role_id', ApiError.missing('role_id'));
      const roleId = parseOrFail(l.line, RoleId, { role_id: raw }).role_id;
      if (!this.knownRoles.has(roleId)) fail(l.line, 'role_id', ApiError.notFound(`role ${roleId}`));
      this.seen.claim(l.line, 'role_id', `${person.id}:${roleId}`, `role ${roleId} of "${person.user_name}"`);
      if (held.get(person.id)?.includes(roleId)) return { line: l.line, outcome: 'unchanged' };
      return {
        line: l.line,
        outcome: 'created',
        write: async (tx) => {
          const store = tx.get(PersonRolesStore);
          const before = await store.ids(person.id);
          if (before.includes(roleId)) return;
          await store.add(person.id, roleId);
          const recorder = tx.get(PersonChangeRecorder);
          await recorder.rolesChanged(user, person.user_name, before, [...before, roleId]);
          await recorder.updated(person, ['roles']);
        },
      };
    });
  }
}

function safely<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}
