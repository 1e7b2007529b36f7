import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { UnitOfWork, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { TenantClock } from '../../platform/time/tenant-clock';
import { PersonChangeRecorder, PersonsRepository, assertBirthdateNotFuture, newPersonColumns, type PersonCreateData, type PersonRow } from '../../people';
import { PersonRolesStore } from '../../catalogue';
import { NewPasswordMail } from '../passwords/mail-new-password';
import { requireKnown } from './known-ids';

export interface PersonCreate {
  organisation_id: number;
  /** Left out: no role (SCIM creates persons before their groups give them roles). */
  role_id?: number;
  /** Further roles (a bulk import's role_ids: role_id is the first of them). */
  more_role_ids?: number[];
  person_data: PersonCreateData;
  send_login?: boolean;
}

/**
 * POST /api/persons: a person (people) with one role (catalogue) and, with send_login, their login
 * mail (messaging), all in one transaction (uow.run): the person and the mail commit together.
 */
@injectable()
export class CreatePersonFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(PersonRolesStore) private readonly roles: PersonRolesStore,
  ) {}

  /** Answers the new person and the answer's message (whether a login was sent). */
  async create(user: Principal, input: PersonCreate, log: Logger): Promise<{ person: PersonRow; message: string }> {
    const roleIds = [...new Set([...(input.role_id === undefined ? [] : [input.role_id]), ...(input.more_role_ids ?? [])])];
    await requireKnown('role', roleIds, (ids) => this.roles.missing(ids));
    const data = input.person_data;
    assertBirthdateNotFuture(data, this.clock.today());
    if (await this.persons.userNameTaken(data.user_name)) {
      throw ApiError.malformed('person_data[user_name]', `user name "${data.user_name}" is already taken`);
    }
    const columns = await newPersonColumns(data, input.organisation_id);
    let loginSent = false;
    const person = await this.uow.run(async (tx) => {
      const created = await tx.get(PersonsRepository).insert(columns);
      for (const roleId of roleIds) await tx.get(PersonRolesStore).add(created.id, roleId);
      const recorder = tx.get(PersonChangeRecorder);
      await recorder.rolesChanged(user, created.user_name, [], roleIds);
      if (input.send_login) loginSent = await this.sendLogin(tx, created, log);
      await recorder.created(created);
      return created;
    });
    if (!input.send_login) return { person, message: 'person created' };
    return { person, message: loginSent ? 'person created; a login was sent' : 'person created, but the login could not be sent; use forgot_password' };
  }

  /**
   * send_login: the login mail goes into the outbox in the transaction that creates the person. A
   * person who cannot be reached is still created (a retry of the POST would only hit "user name
   * taken"); a database error writing the mail fails the whole creation (the transaction is broken).
   */
  private async sendLogin(tx: Transaction, person: PersonRow, log: Logger): Promise<boolean> {
    try {
      if (await tx.get(NewPasswordMail).write(person.id, 'send_login')) return true;
      log.info({ personId: person.id }, 'the login of a new person was not sent: neither e-mail nor mobile');
      return false;
    } catch (err) {
      log.error({ err, personId: person.id }, 'sending the login of a new person failed');
      return false;
    }
  }
}
