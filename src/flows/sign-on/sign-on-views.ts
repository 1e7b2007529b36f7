import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import { TenantClock } from '../../platform/time/tenant-clock';
import { PersonEventsRepository, type PersonEventFilters, type PersonEventRow } from '../../courses';
import { joinPersons, personsInSubtree } from '../../people';

/** Whose sign-ons a list holds: the persons of an organisation and every organisation below it, these persons, or everyone's. */
export type SignOnsOf = { organisationId: number } | { personIds: number[] } | 'everyone';

/**
 * Sign-ons as the API and the webhooks show them: courses' rows with the person's user name
 * (people), one statement each. Inside a transaction, reach it with tx.get(SignOnViewsFlow).
 */
@injectable()
export class SignOnViewsFlow {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(PersonEventsRepository) private readonly personEvents: PersonEventsRepository,
    @inject(TenantClock) private readonly clock: TenantClock,
  ) {}

  /** Courses' sign-ons (pe) joined to the person (people, p) for the user name. */
  private named(): Knex.QueryBuilder {
    return joinPersons(this.personEvents.base(), 'p', 'pe.person_id').select('p.user_name');
  }

  byId(id: number): Promise<PersonEventRow> {
    return this.personEvents.byId(this.named(), id);
  }

  /** The person's live sign-on (seat or wait list) to the event. */
  live(personId: number, eventId: number): Promise<PersonEventRow | undefined> {
    return this.personEvents.live(this.named(), personId, eventId);
  }

  list(of: SignOnsOf, filters: Omit<PersonEventFilters, 'personIds'>, paging: Paging): Promise<PersonEventRow[]> {
    const personIds = of === 'everyone' ? undefined : 'organisationId' in of ? personsInSubtree(this.db, of.organisationId) : of.personIds;
    return this.personEvents.list(this.named(), { ...filters, personIds }, paging, this.clock.now());
  }
}
