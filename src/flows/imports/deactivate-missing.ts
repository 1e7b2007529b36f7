import { injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import type { NamedPersons } from './person-rows';

/**
 * deactivate_missing=1 of a persons import: after the last row, every active person the file does
 * not name (by user_name, extern_person_id, or as the person a row matched, failed rows included)
 * is deactivated as PUT /api/persons/[user_name]/deactivate does it; never the caller.
 *
 * Person deactivation (issue 36 item 3, PersonLifecycleFlow) is not on this branch yet: until it
 * is wired here, the option answers 501 and no import is started with it.
 */
@injectable()
export class DeactivateMissingPersons {
  readonly available: boolean = false;

  assertAvailable(): void {
    if (!this.available) throw new ApiError(501, 'deactivate_missing is not available yet: person deactivation is not part of this server');
  }

  /** How many active persons the import would deactivate (a dry run's figure). */
  async count(_user: Principal, _named: NamedPersons): Promise<number> {
    this.assertAvailable();
    return 0;
  }

  /** Deactivates them; answers how many. */
  async deactivate(_user: Principal, _named: NamedPersons): Promise<number> {
    this.assertAvailable();
    return 0;
  }
}
