import type { Knex } from 'knex';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/**
 * Ids of the persons signed on to the event or on its wait list (a sign-off does not count): a
 * self-contained sub-query on person_events for `whereIn(<person id column>, ...)` in another
 * module's person query, composed by a flow.
 */
export function personsAttending(db: TenantDb, eventId: number): Knex.QueryBuilder {
  return db.table('person_events').select('person_id').where('event_id', eventId).whereNot('status', 'signed_off');
}
