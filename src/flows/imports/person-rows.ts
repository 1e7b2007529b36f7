import { z } from 'zod';
import { inject, injectable } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { p } from '../../platform/http/param-types';
import { TenantClock } from '../../platform/time/tenant-clock';
import {
  OrganisationsRepository,
  PersonCreateData,
  PersonUpdateData,
  PersonsRepository,
  PROFILE_COLUMNS,
  assertBirthdateNotFuture,
  passwordToProve,
  type PersonRow,
} from '../../people';
import { PersonRolesStore } from '../../catalogue';
import { CreatePersonFlow } from '../persons/create-person';
import { UpdatePersonFlow } from '../persons/update-person';
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

const CreateInput = z.object({ person_data: PersonCreateData });
const UpdateInput = z.object({ person_data: PersonUpdateData });
const RoleIds = z.object({ role_ids: z.preprocess((v) => (typeof v === 'string' ? v.split(/[\s,;]+/).filter(Boolean) : v), z.array(p.id()).min(1)) });

/** Who the persons of an import are, for deactivate_missing: every person a line named (failed lines too), and the caller. */
export interface NamedPersons {
  ids: Set<number>;
  userNames: Set<string>;
  externIds: Set<string>;
}

/**
 * Lines of a persons import: a new person through CreatePersonFlow (POST /api/persons), a known one
 * through UpdatePersonFlow (PUT /api/persons/[user_name]) with only the fields that differ, so a
 * second import of the same file changes nothing. See IMPORT_COLUMNS.persons.
 */
@injectable()
export class PersonImportRows implements ImportRows {
  private caller!: ImportCaller;
  private header = new Set<string>();
  private readonly seen = new SeenKeys();
  private readonly knownRoles = new Set<number>();
  readonly named: NamedPersons = { ids: new Set(), userNames: new Set(), externIds: new Set() };

  constructor(
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(OrganisationsRepository) private readonly organisations: OrganisationsRepository,
    @inject(PersonRolesStore) private readonly roles: PersonRolesStore,
    @inject(TenantClock) private readonly clock: TenantClock,
  ) {}

  start(caller: ImportCaller, header: readonly string[]): void {
    this.caller = caller;
    this.header = new Set(header);
    this.named.ids.add(caller.user.personId);
  }

  async check(lines: readonly ImportLine[]): Promise<Checked[]> {
    const [persons, organisations] = await Promise.all([PersonsOfBatch.read(this.persons, lines), OrganisationsOfBatch.read(this.organisations, lines)]);
    const found = lines.map((l) => {
      try {
        return persons.find(l);
      } catch {
        return undefined;
      }
    });
    const held = this.header.has('role_ids') ? await this.roles.idsOf(found.filter((x): x is PersonRow => !!x).map((x) => x.id)) : new Map<number, number[]>();
    await this.learnRoles(lines);
    return eachLine(lines, (l) => {
      for (const [column, set] of [
        ['user_name', this.named.userNames],
        ['extern_person_id', this.named.externIds],
      ] as const) {
        const v = cell(l, column);
        if (v !== undefined) set.add(v);
      }
      const person = persons.find(l);
      if (person) this.named.ids.add(person.id);
      const checked = person ? this.update(l, person, organisations, held.get(person.id) ?? []) : this.create(l, organisations);
      this.claim(l, person);
      return checked;
    });
  }

  private claim(l: ImportLine, person: PersonRow | undefined): void {
    const name = cell(l, 'user_name');
    if (person) this.seen.claim(l.line, name !== undefined ? 'user_name' : 'extern_person_id', `p${person.id}`, `person "${person.user_name}"`);
    else if (name !== undefined) this.seen.claim(l.line, 'user_name', `u${name}`, `user_name "${name}"`);
  }

  /** Role ids of the batch not met before, asked about in one statement. */
  private async learnRoles(lines: readonly ImportLine[]): Promise<void> {
    const ids = new Set<number>();
    for (const l of lines)
      for (const v of (cell(l, 'role_ids') ?? '').split(/[\s,;]+/)) if (/^\d{1,9}$/.test(v) && !this.knownRoles.has(Number(v))) ids.add(Number(v));
    if (ids.size === 0) return;
    const missing = new Set(await this.roles.missing([...ids]));
    for (const id of ids) if (!missing.has(id)) this.knownRoles.add(id);
  }

  private profile(l: ImportLine): Record<string, unknown> {
    const data: Record<string, unknown> = {};
    for (const c of PROFILE_COLUMNS) if (this.header.has(c)) data[c] = l.cells.get(c) ?? '';
    return data;
  }

  private roleIds(l: ImportLine): number[] | undefined {
    const raw = cell(l, 'role_ids');
    if (raw === undefined) return undefined;
    const ids = [...new Set(parseOrFail(l.line, RoleIds, { role_ids: raw }).role_ids)];
    const unknown = ids.filter((id) => !this.knownRoles.has(id));
    if (unknown.length) fail(l.line, 'role_ids', ApiError.notFound(`role ${unknown.join(', ')}`));
    return ids;
  }

  private create(l: ImportLine, organisations: OrganisationsOfBatch): Checked {
    const userName = cell(l, 'user_name');
    if (userName === undefined) fail(l.line, 'user_name', ApiError.missing('person_data[user_name]'));
    const input = parseOrFail(l.line, CreateInput, { person_data: { ...this.profile(l), user_name: userName } });
    assertBirthdateNotFuture(input.person_data, this.clock.today());
    const organisationId = organisations.resolve(l);
    if (organisationId === undefined) fail(l.line, 'organisation_id', ApiError.missing('organisation_id'));
    const roleIds = this.roleIds(l);
    if (!roleIds) fail(l.line, 'role_ids', ApiError.missing('role_ids'));
    const { user, log } = this.caller;
    return {
      line: l.line,
      outcome: 'created',
      write: async (tx) => {
        const { person } = await tx
          .get(CreatePersonFlow)
          .create(user, { organisation_id: organisationId, role_id: roleIds[0], more_role_ids: roleIds.slice(1), person_data: input.person_data }, log);
        this.named.ids.add(person.id);
      },
    };
  }

  private update(l: ImportLine, person: PersonRow, organisations: OrganisationsOfBatch, rolesHeld: number[]): Checked {
    const data = this.profile(l);
    const userName = cell(l, 'user_name');
    if (userName !== undefined && userName !== person.user_name) data.user_name = userName;
    const parsed = parseOrFail(l.line, UpdateInput, { person_data: data }).person_data as Record<string, unknown>;
    const changed: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(parsed)) if (v !== undefined && v !== (person as unknown as Record<string, unknown>)[k]) changed[k] = v;
    const { user } = this.caller;
    assertBirthdateNotFuture(changed, this.clock.today());
    passwordToProve(user.personId === person.id, person, changed, {});
    const organisationId = organisations.resolve(l);
    const moved = organisationId !== undefined && organisationId !== person.organisation_id;
    const roleIds = this.roleIds(l);
    const before = [...new Set(rolesHeld)].sort((a, b) => a - b);
    const rolesChange = roleIds !== undefined && (roleIds.length !== before.length || [...roleIds].sort((a, b) => a - b).some((id, i) => id !== before[i]));
    if (!Object.keys(changed).length && !moved && !rolesChange) return { line: l.line, outcome: 'unchanged' };
    return {
      line: l.line,
      outcome: 'updated',
      write: async (tx) => {
        const input = {
          person_data: changed as PersonUpdateData,
          role_ids: rolesChange ? roleIds : undefined,
          organisation_id: moved ? organisationId : undefined,
        };
        await tx.get(UpdatePersonFlow).update(user, person, input, '');
      },
    };
  }
}
