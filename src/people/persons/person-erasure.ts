import { inject, injectAll, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { Logger } from 'pino';
import { LOGGER, TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenancy/tenant';
import { UnitOfWork } from '../../platform/tenancy/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail, renameInAuditLog } from '../../platform/audit';
import { PERSON_SESSIONS, type PersonSessions } from '../person-ports';
import { PERSON_DATA, type ErasureStep, type PersonDataHolder } from '../../platform/privacy/personal-data';

/** Everything on the person row that identifies or describes them; id, organisation and flags stay. */
const PERSONAL_COLUMNS = [
  'firstname', 'lastname', 'jobtitle', 'mobile', 'email', 'birthdate', 'extern_person_id', 'address', 'postcode', 'city',
  'phone', 'sex', 'notice', 'employee_code', 'profile_image', 'source', 'code',
  'password_hash', 'password_changed_at', 'must_change_password', 'pending_password_hash', 'pending_password_expires_at',
] as const;

export const erasedUserName = (personId: number) => `erased-${personId}`;

/**
 * The right to erasure: anonymises a person in place, irreversibly. The row stays (as
 * `erased-<id>`) so registrations, sign-ons and survey answers keep counting in statistics
 * without naming anyone. One transaction, in which every module that keeps personal data
 * (PERSON_DATA) blanks its part; sessions and file bytes go after the commit, since neither can
 * roll back with it.
 */
@injectable()
export class PersonEraser {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(PERSON_SESSIONS) private readonly sessions: PersonSessions,
    @inject(LOGGER) private readonly log: Logger,
    @injectAll(PERSON_DATA, { isOptional: true }) private readonly holders: PersonDataHolder[] = [],
  ) {}

  async erase(user: Principal, userName: string, confirm: string): Promise<string> {
    if (confirm !== userName) throw ApiError.malformed('confirm', 'must equal the user_name of the person to erase');
    return this.uow.run(async (tx) => {
      const trx = tx.get(TENANT_DB);
      const person = await trx.table('persons').where('user_name', userName).forUpdate().first('id');
      if (!person) throw ApiError.notFound(`person "${userName}"`);
      // the last superuser erasing themself would lock the tenant out; another superuser can do it
      if (person.id === user.personId) throw ApiError.forbidden('a superuser cannot erase themself: ask another superuser');
      const name = erasedUserName(person.id);
      if (await trx.table('persons').where('user_name', name).whereNot('id', person.id).first('id')) {
        throw new ApiError(409, `user name "${name}" is taken by another person; rename that person first`);
      }
      await trx.table('persons').where('id', person.id).update({
        ...Object.fromEntries(PERSONAL_COLUMNS.map((c) => [c, null])),
        user_name: name, superuser: false, superadmin: false, updated_at: trx.fn.now(),
      });
      // a placeholder manages nothing
      await trx.table('organisation_managers').where('person_id', person.id).delete();
      // Failures here leave no personal data readable through the API (the rows are gone); they are logged for a retry by hand.
      tx.afterCommit(() => this.sessions.destroyAllFor(this.tenant, person.id).catch((err) => this.log.error({ err, personId: person.id }, 'erasure: ending sessions failed')));
      const steps: ErasureStep[] = [];
      for (const holder of this.holders) {
        const step = await holder.erase?.(tx, person.id);
        if (step) steps.push(step);
      }
      await renameInAuditLog(trx, userName, name);
      const details = Object.assign({ person_id: person.id }, ...steps.map((s) => s.details ?? {}));
      await tx.get(AuditTrail).record({ type: 'person.erased', actor: user.userName, subject: name, details });
      return name;
    });
  }
}
