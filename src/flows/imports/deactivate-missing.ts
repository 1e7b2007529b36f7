import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER } from '../../platform/tokens';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { PersonsRepository, type PersonRow } from '../../people';
import { PersonLifecycleFlow } from '../persons/person-lifecycle';
import type { NamedPersons } from './person-rows';

/**
 * deactivate_missing=1 of a persons import: after the last row, every active person the file does
 * not name is deactivated as PUT /api/persons/[user_name]/deactivate does it (PersonLifecycleFlow,
 * audit `person.deactivated` with via import, the webhook, sessions and coming sign-ons ended),
 * each in a transaction of its own. Named means: a row's user_name or extern_person_id, or the person
 * a row matched, failed rows included (a row with a typo must not cost its person the account).
 * Never the caller.
 */
@injectable()
export class DeactivateMissingPersons {
  constructor(
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(PersonLifecycleFlow) private readonly lifecycle: PersonLifecycleFlow,
    @inject(LOGGER) private readonly log: Logger,
  ) {}

  private async missing(user: Principal, named: NamedPersons): Promise<Pick<PersonRow, 'id' | 'user_name'>[]> {
    const active = await this.persons.activeKeys();
    return active.filter(
      (p) =>
        p.id !== user.personId &&
        !named.ids.has(p.id) &&
        !named.userNames.has(p.user_name) &&
        !(p.extern_person_id !== null && named.externIds.has(p.extern_person_id)),
    );
  }

  /** How many active persons the import would deactivate (a dry run's figure). */
  async count(user: Principal, named: NamedPersons): Promise<number> {
    return (await this.missing(user, named)).length;
  }

  /** Deactivates them; answers how many were. One that cannot be (gone meanwhile) is logged and left. */
  async deactivate(user: Principal, named: NamedPersons): Promise<number> {
    let done = 0;
    for (const p of await this.missing(user, named)) {
      try {
        if ((await this.lifecycle.deactivate(user, p, 'import')).changed) done++;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        this.log.warn({ err: err.message, personId: p.id }, 'deactivate_missing: a person was not deactivated');
      }
    }
    return done;
  }
}
