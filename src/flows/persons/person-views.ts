import { inject, injectable } from 'tsyringe';
import type { ViewName } from '../../platform/http/param-types';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { ApiError } from '../../platform/errors/api-error';
import {
  PersonsRepository,
  presentPersonFull,
  presentPersonSimple,
  type PersonKey,
  type PersonRead,
  type PersonRow,
  type PersonWithDetails,
} from '../../people';
import { heldRolesJson } from '../../catalogue';

/**
 * A person as the API shows them: people's row and details, and the roles catalogue says they hold.
 * The roles are catalogue's JSON sub-select composed into people's person statement (people hands
 * it its own person id column), not a read of their own: the full view, GET /api/person above all
 * (own-view-cache.ts), has been one statement since round trips were found to dominate its cost.
 */
@injectable()
export class PersonViews {
  constructor(
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  /** The person with everything the full view shows, in one statement. */
  find(key: PersonKey): Promise<PersonWithDetails | undefined> {
    return this.persons.findWithDetails(key, heldRolesJson);
  }

  /** The person with this id (GET /api/person: the caller), as `view` shows them. */
  async get(id: number, view: ViewName): Promise<object> {
    const row = view === 'full' ? await this.find({ id }) : await this.persons.find({ id });
    if (!row) throw ApiError.notFound(`person ${id}`);
    return this.present(row, view);
  }

  /** A row read with its details (find, a full list) is presented as it is; one without (after a write) costs one statement, not on persons. */
  async present(row: PersonRow, view: ViewName): Promise<object> {
    if (view === 'simple') return presentPersonSimple(row);
    return presentPersonFull(row, await this.persons.details(row, heldRolesJson), this.tenant.config.get('password.max_age_days'));
  }
}

/**
 * For a person rule (policies.selfOrManager(..., personWithDetails)): the person with the full
 * view's details, so the handler presents what the access decision read and reads nothing more.
 */
export const personWithDetails: PersonRead<PersonWithDetails> = {
  name: 'person with details',
  find: (ctx, key) => ctx.resolve(PersonViews).find(key),
};
