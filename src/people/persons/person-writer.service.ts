import { TenantClock } from '../../platform/time/tenant-clock';
import { TENANT_DB } from '../../platform/tokens';
import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenancy/tenant';
import { UnitOfWork, type Transaction } from '../../platform/tenancy/unit-of-work';
import { PersonAccess, type TargetPerson } from '../person-access';
import { PersonCredentials } from './person-credentials';
import type { Principal } from '../../platform/auth/principal';
import { hashPassword, verifyPassword } from '../../platform/auth/password-hasher';
import { ApiError } from '../../platform/errors/api-error';
import { PASSWORD_ATTEMPTS, PERSON_ROLES, PERSON_SESSIONS, type PasswordAttempts, type PersonRoles, type PersonSessions } from '../person-ports';
import { PersonsRepository } from './persons.repository';
import type { PersonRow } from '../person-row';
import { PersonsService } from './persons.service';
import { PersonChangeRecorder } from './person-change-recorder';
import { PROFILE_COLUMNS, type PersonCreateData, type PersonUpdateData } from './person-data.schema';
import { presentPersonSimple } from './person.presenter';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';

export interface PersonUpdate {
  person_data?: PersonUpdateData;
  old_password?: string;
  password_match?: string;
  role_ids?: number[];
}

export interface PersonCreate {
  organisation_id: number;
  role_id: number;
  person_data: PersonCreateData;
}

/**
 * Changing persons: profile, credentials (with the 418 rules), roles, creation. The routes' access
 * rules have resolved and checked the person; what remains here depends on the change asked for.
 */
@injectable()
export class PersonWriter {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(PersonsService) private readonly reader: PersonsService,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(PersonCredentials) private readonly credentials: PersonCredentials,
    @inject(PERSON_SESSIONS) private readonly sessions: PersonSessions,
    @inject(PASSWORD_ATTEMPTS) private readonly throttle: PasswordAttempts,
    @inject(PERSON_ROLES) private readonly roles: PersonRoles,
    @inject(PersonChangeRecorder) private readonly recorder: PersonChangeRecorder,
    @inject(TenantClock) private readonly clock: TenantClock,
  ) {}

  /** person.updated in the change's transaction: the person as it is now and which fields changed (never their old values). */
  private async recordUpdated(tx: Transaction, personId: number, changed: string[]): Promise<void> {
    if (changed.length === 0) return;
    await tx.get(OUTBOUND_EVENTS).record('person.updated', async () => {
      const row = await tx.get(PersonsRepository).findById(personId);
      return row ? { ...presentPersonSimple(row), changed } : null;
    });
  }

  /** `ip`: the client address, for the password-guessing limits of old_password. */
  async update(user: Principal, person: TargetPerson, input: PersonUpdate, ip: string): Promise<PersonRow> {
    const data = input.person_data ?? {};
    const target = await this.reader.requireById(person.id);
    const isSelf = user.personId === target.id;
    this.assertNotSuperuserOf(user, target);
    if (input.role_ids !== undefined) await this.access.assert(user, target, 'actingManager', 'set roles');
    this.assertBirthdateNotFuture(data);
    await this.checkCredentials(isSelf, target, data, input, ip);
    if (data.user_name !== undefined && (await this.persons.userNameTaken(data.user_name, target.id))) {
      throw ApiError.malformed('person_data[user_name]', `user name "${data.user_name}" is already taken`);
    }
    if (input.role_ids) await this.reader.assertExist('roles', input.role_ids, 'role');

    const changes: Record<string, unknown> = {};
    for (const c of PROFILE_COLUMNS) if (data[c] !== undefined) changes[c] = data[c];
    if (data.user_name !== undefined) changes.user_name = data.user_name;
    if (data.password !== undefined) {
      changes.password_hash = await hashPassword(data.password);
      changes.password_changed_at = new Date();
      changes.must_change_password = isSelf ? null : 'changed_by_other';
    }
    await this.uow.run(async (tx) => {
      const rolesBefore = input.role_ids ? await this.roles.ids(tx.get(TENANT_DB), target.id) : undefined;
      if (Object.keys(changes).length) await tx.get(PersonsRepository).update(target.id, changes);
      if (input.role_ids) await this.roles.replace(tx, target.id, [...new Set(input.role_ids)]);
      await this.recorder.record(tx, { user, target, changes, rolesBefore, rolesAfter: input.role_ids });
      await this.recordUpdated(tx, target.id, changedFields(changes, input.role_ids !== undefined));
      if (data.password !== undefined) {
        // A new password ends every other session: the owner's other devices, or all of them when set by someone else.
        tx.afterCommit(() => this.sessions.destroyAllFor(this.tenant, target.id, isSelf ? user.sessionId : undefined));
      }
    });
    return (await this.persons.findById(target.id))!;
  }

  // The tenant's today, so a person born today in Kiritimati is not refused while UTC is still yesterday.
  private assertBirthdateNotFuture(data: { birthdate?: string | null }): void {
    if (data.birthdate && data.birthdate > this.clock.today()) throw ApiError.malformed('person_data[birthdate]', 'must not be in the future');
  }

  // A manager of the organisation a superuser sits in could otherwise reset the superuser's password and take over.
  private assertNotSuperuserOf(user: Principal, target: PersonRow): void {
    if (target.superuser && !user.superuser && user.personId !== target.id) {
      throw ApiError.forbidden('not authorised to change a superuser: only superusers may');
    }
  }

  /**
   * Self needs old_password for a new password, user name, e-mail or mobile (and password_match for a new password),
   * so a stolen session cannot redirect password mail; managers and superusers need neither.
   */
  private async checkCredentials(isSelf: boolean, target: PersonRow, data: PersonUpdateData, input: PersonUpdate, ip: string): Promise<void> {
    const oldPassword = input.old_password ?? data.old_password;
    const passwordMatch = input.password_match ?? data.password_match;
    const changesUserName = data.user_name !== undefined && data.user_name !== target.user_name;
    const changesContact = (['email', 'mobile'] as const).some((f) => data[f] !== undefined && data[f] !== target[f]);
    if (isSelf && (data.password !== undefined || changesUserName || changesContact)) {
      if (oldPassword === undefined) throw ApiError.missing('old_password');
      if (data.password !== undefined && passwordMatch === undefined) throw ApiError.missing('password_match');
      // A stolen session must not become a password-guessing oracle: the login limits apply.
      await this.throttle.attempt(target.user_name, ip, 'old_password');
      const matches = await this.throttle.deciding(target.user_name, ip, async () => verifyPassword(await this.credentials.passwordHash(target.id), oldPassword));
      if (!matches) {
        throw ApiError.malformed('old_password', 'does not match the current password');
      }
      await this.throttle.succeeded(target.user_name, ip);
      if (data.password !== undefined && data.password === oldPassword) {
        throw ApiError.malformed('person_data[password]', 'must differ from the current password');
      }
    }
    if (passwordMatch !== undefined && data.password !== undefined && passwordMatch !== data.password) {
      throw ApiError.malformed('password_match', 'must equal person_data[password]');
    }
  }

  async removeRoles(user: Principal, person: TargetPerson, roleIds: number[]): Promise<{ person: PersonRow; removed: number }> {
    const target = await this.reader.requireById(person.id);
    this.assertNotSuperuserOf(user, target);
    await this.reader.assertExist('roles', roleIds, 'role');
    const removed = await this.uow.run(async (tx) => {
      const before = await this.roles.ids(tx.get(TENANT_DB), target.id);
      const n = await this.roles.remove(tx, target.id, [...new Set(roleIds)]);
      await this.recorder.rolesChanged(tx, user, target.user_name, before, before.filter((id) => !roleIds.includes(id)));
      if (n > 0) await this.recordUpdated(tx, target.id, ['roles']);
      return n;
    });
    return { person: target, removed };
  }

  /** `inTransaction`: more to write with the new person, committed together (the send_login mail). */
  async create(user: Principal, input: PersonCreate, inTransaction?: (tx: Transaction, id: number) => Promise<void>): Promise<PersonRow> {
    await this.reader.assertExist('roles', [input.role_id], 'role');
    const data = input.person_data;
    this.assertBirthdateNotFuture(data);
    if (await this.persons.userNameTaken(data.user_name)) {
      throw ApiError.malformed('person_data[user_name]', `user name "${data.user_name}" is already taken`);
    }
    const row: Record<string, unknown> = { user_name: data.user_name, organisation_id: input.organisation_id };
    for (const c of PROFILE_COLUMNS) if (data[c] !== undefined) row[c] = data[c];
    if (data.password !== undefined) {
      row.password_hash = await hashPassword(data.password);
      row.password_changed_at = new Date();
      // chosen by the creator, so the person picks their own at first login
      row.must_change_password = 'changed_by_other';
    }
    const id = await this.uow.run(async (tx) => {
      const newId = await tx.get(PersonsRepository).insert(row);
      await this.roles.add(tx, newId, input.role_id);
      await this.recorder.rolesChanged(tx, user, data.user_name, [], [input.role_id]);
      await inTransaction?.(tx, newId);
      await tx.get(OUTBOUND_EVENTS).record('person.created', async () => presentPersonSimple((await tx.get(PersonsRepository).findById(newId))!));
      return newId;
    });
    return (await this.persons.findById(id))!;
  }
}

/** Field names of a person change as receivers know them (password, not its hash; roles). */
function changedFields(changes: Record<string, unknown>, roles: boolean): string[] {
  const internal = ['password_changed_at', 'must_change_password'];
  const names = Object.keys(changes).filter((k) => !internal.includes(k)).map((k) => (k === 'password_hash' ? 'password' : k));
  return roles ? [...names, 'roles'] : names;
}
