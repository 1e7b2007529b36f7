import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { verifyPassword } from '../../platform/auth/password-hasher';
import { ApiError } from '../../platform/errors/api-error';
import { TenantClock } from '../../platform/time/tenant-clock';
import {
  PersonAccess,
  PersonChangeRecorder,
  PersonCredentials,
  PersonsRepository,
  assertBirthdateNotFuture,
  assertMayChange,
  assertMayChangeSuperadmin,
  assertNewPassword,
  changesOwnIdentityKey,
  changedFields,
  passwordToProve,
  updatedColumns,
  type PasswordHelpers,
  type PersonRow,
  type PersonUpdateData,
} from '../../people';
import { PersonRolesStore } from '../../catalogue';
import { ContactChangeNotice } from '../../messaging';
import { LoginThrottle, SessionStore } from '../../identity';
import { requireKnown } from './known-ids';

export interface PersonUpdate extends PasswordHelpers {
  person_data?: PersonUpdateData;
  role_ids?: number[];
  /** Moves the person (a superuser's bulk import; PUT /api/persons takes no organisation). */
  organisation_id?: number;
}

/**
 * PUT /api/persons/[user_name]: profile, credentials (with the 418 rules), roles. The route's access
 * rule has read the person (the whole row) and checked it; what remains depends on the change asked
 * for. One transaction (uow.run) holds the row, the roles (catalogue), the audit entries and
 * webhook event (people) and the notice to the old e-mail address (messaging); the sessions
 * (identity) end after the commit.
 */
@injectable()
export class UpdatePersonFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(PersonCredentials) private readonly credentials: PersonCredentials,
    @inject(PersonRolesStore) private readonly roles: PersonRolesStore,
    @inject(LoginThrottle) private readonly throttle: LoginThrottle,
    @inject(SessionStore) private readonly sessions: SessionStore,
  ) {}

  /** `ip`: the client address, for the password-guessing limits of old_password. Answers the row as the update left it. */
  async update(user: Principal, target: PersonRow, input: PersonUpdate, ip: string): Promise<PersonRow> {
    const data = input.person_data ?? {};
    const isSelf = user.personId === target.id;
    assertMayChange(user, target);
    assertMayChangeSuperadmin(user, target, data, input.role_ids !== undefined);
    if (input.role_ids !== undefined) await this.access.assert(user, target, 'actingManager', 'set roles');
    if (changesOwnIdentityKey(isSelf, target, data)) await this.access.assert(user, target, 'actingManager', 'change person_data[extern_person_id]');
    assertBirthdateNotFuture(data, this.clock.today());
    const proven = await this.proveOldPassword(target, passwordToProve(isSelf, target, data, input), ip);
    assertNewPassword(data, input, proven);
    if (data.user_name !== undefined && (await this.persons.userNameTaken(data.user_name, target.id))) {
      throw ApiError.malformed('person_data[user_name]', `user name "${data.user_name}" is already taken`);
    }
    if (input.role_ids) await requireKnown('role', input.role_ids, (ids) => this.roles.missing(ids));
    const changes = await updatedColumns(data, isSelf);
    if (input.organisation_id !== undefined && input.organisation_id !== target.organisation_id) {
      if (!user.superuser) throw ApiError.forbidden('not authorised to move a person to another organisation: superusers only');
      changes.organisation_id = input.organisation_id;
    }

    return this.uow.run(async (tx) => {
      const roles = tx.get(PersonRolesStore);
      const rolesBefore = input.role_ids ? await roles.ids(target.id) : undefined;
      const row = Object.keys(changes).length ? await tx.get(PersonsRepository).update(target.id, changes) : target;
      if (!row) throw ApiError.notFound(`person ${target.id}`);
      if (input.role_ids) await roles.replace(target.id, [...new Set(input.role_ids)]);
      const recorder = tx.get(PersonChangeRecorder);
      const noticed = await recorder.changed({ user, target, changes, rolesBefore, rolesAfter: input.role_ids });
      if (noticed.length && (target.email || target.mobile)) {
        await tx.get(ContactChangeNotice).write({
          personId: target.id,
          userName: target.user_name,
          oldEmail: target.email,
          oldMobile: target.mobile,
          fields: noticed,
          changedBy: user.userName,
          language: row.language,
        });
      }
      await recorder.updated(row, changedFields(changes, input.role_ids !== undefined));
      if (data.password !== undefined) {
        // A new password ends every other session: the owner's other devices, or all of them when set by someone else.
        tx.afterCommit(() => this.sessions.destroyAllFor(this.tenant, target.id, isSelf ? user.sessionId : undefined));
      }
      return row;
    });
  }

  /** A stolen session must not become a password-guessing oracle: checking old_password counts against the login limits. */
  private async proveOldPassword(target: PersonRow, oldPassword: string | undefined, ip: string): Promise<string | undefined> {
    if (oldPassword === undefined) return undefined;
    await this.throttle.attempt(target.user_name, ip, 'old_password');
    const matches = await this.throttle.deciding(target.user_name, ip, async () => verifyPassword(await this.credentials.passwordHash(target.id), oldPassword));
    if (!matches) throw ApiError.malformed('old_password', 'does not match the current password');
    await this.throttle.succeeded(target.user_name, ip);
    return oldPassword;
  }
}
