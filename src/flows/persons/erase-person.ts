import { inject, injectAll, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER, TENANT, TENANT_DB } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail, renameInAuditLog } from '../../platform/audit';
import { PERSON_DATA, type ErasureStep, type PersonDataHolder } from '../../platform/privacy/personal-data';
import { PersonAnonymiser, erasedUserName } from '../../people';
import { SessionStore } from '../../identity';

/**
 * POST /api/persons/[user_name]/erase, the right to erasure: anonymises a person in place,
 * irreversibly. One transaction (uow.run), in which people blanks the row and every module that
 * keeps personal data (the PERSON_DATA holders) blanks its part; the sessions (identity) end after
 * the commit, since they cannot roll back with it (nor can the file bytes a holder deletes).
 */
@injectable()
export class ErasePersonFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(SessionStore) private readonly sessions: SessionStore,
    @inject(LOGGER) private readonly log: Logger,
    @injectAll(PERSON_DATA, { isOptional: true }) private readonly holders: PersonDataHolder[] = [],
  ) {}

  /** Answers the placeholder user name, erased-<person_id>. */
  async erase(user: Principal, userName: string, confirm: string): Promise<string> {
    if (confirm !== userName) throw ApiError.malformed('confirm', 'must equal the user_name of the person to erase');
    return this.uow.run(async (tx) => {
      const anonymiser = tx.get(PersonAnonymiser);
      const person = await anonymiser.lock(userName);
      if (!person) throw ApiError.notFound(`person "${userName}"`);
      // the last superuser erasing themself would lock the tenant out; another superuser can do it
      if (person.id === user.personId) throw ApiError.forbidden('a superuser cannot erase themself: ask another superuser');
      const name = erasedUserName(person.id);
      if (await anonymiser.nameTaken(name, person.id)) {
        throw new ApiError(409, `user name "${name}" is taken by another person; rename that person first`);
      }
      // what identified the person, read before it is blanked: holders look for copies of it
      const identifiers = await anonymiser.identifiers(person.id);
      const formerNames = await renameInAuditLog(tx.get(TENANT_DB), person.id, name);
      await anonymiser.anonymise(person.id, name);
      // Failures here leave no personal data readable through the API (the rows are gone); they are logged for a retry by hand.
      tx.afterCommit(() =>
        this.sessions.destroyAllFor(this.tenant, person.id).catch((err) => this.log.error({ err, personId: person.id }, 'erasure: ending sessions failed')),
      );
      const steps: ErasureStep[] = [];
      for (const holder of this.holders) {
        const step = await holder.erase?.(tx, person.id, { placeholder: name, identifiers: [...new Set([...identifiers, ...formerNames])] });
        if (step) steps.push(step);
      }
      const details = Object.assign({ person_id: person.id }, ...steps.map((s) => s.details ?? {}));
      await tx.get(AuditTrail).record({ type: 'person.erased', actor: user.userName, subject: name, details });
      return name;
    });
  }
}
