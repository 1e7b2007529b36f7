import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';

/** The events part of the changes feed (GET /api/changes?Type=events, a flow above this module). */
@injectable()
export class EventChangesRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * Events updated since `start` (the end is ignored for events, as the spec says) and events
   * deleted since then (their tombstones in event_deletions, `deleted: true`), oldest change first.
   * `signedOn`: only events with a sign-on of one of these persons (a sub-query of person ids); a
   * deleted event never had one (DELETE refuses it then), so deletions are left out with it.
   */
  async since(start: Date, signedOn: Knex.QueryBuilder | Knex.Raw | undefined, page: Paging): Promise<Record<string, unknown>[]> {
    const changed = this.db
      .table('events')
      .where('updated_at', '>=', start)
      .select(
        'id as event_id',
        'title',
        'competence_id',
        'parent_id',
        'starts_at',
        'ends_at',
        'cancelled',
        'locked',
        this.db.raw('false as deleted'),
        'updated_at as changed_at',
      );
    if (signedOn !== undefined) {
      changed.whereIn(
        'id',
        this.db
          .table('person_events')
          .select('event_id')
          .whereIn('person_id', signedOn as any),
      );
    } else {
      changed.unionAll(
        this.db
          .table('event_deletions')
          .where('deleted_at', '>=', start)
          .select(
            'event_id',
            'title',
            'competence_id',
            'parent_id',
            'starts_at',
            'ends_at',
            this.db.raw('null as cancelled'),
            this.db.raw('null as locked'),
            this.db.raw('true as deleted'),
            'deleted_at as changed_at',
          ),
        true,
      );
    }
    const rows = await this.db.builder
      .select('*')
      .from(changed.as('x'))
      .orderBy([{ column: 'changed_at' }, { column: 'deleted' }, { column: 'event_id' }])
      .limit(page.limit)
      .offset(page.offset);
    return rows.map(({ cancelled, locked, ...r }: Record<string, unknown>) => (r.deleted ? r : { ...r, cancelled, locked }));
  }
}
