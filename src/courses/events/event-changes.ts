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
   * Events updated since `start` (the end is ignored for events, as the spec says), oldest change
   * first. `signedOn`: only events with a sign-on of one of these persons (a sub-query of person ids).
   */
  async since(start: Date, signedOn: Knex.QueryBuilder | Knex.Raw | undefined, page: Paging): Promise<Record<string, unknown>[]> {
    const q = this.db
      .table('events')
      .where('updated_at', '>=', start)
      .select('id as event_id', 'title', 'competence_id', 'parent_id', 'starts_at', 'ends_at', 'cancelled', 'locked', 'updated_at as changed_at')
      .orderBy([{ column: 'updated_at' }, { column: 'id' }])
      .limit(page.limit)
      .offset(page.offset);
    if (signedOn !== undefined) {
      q.whereIn('id', this.db.table('person_events').select('event_id').whereIn('person_id', signedOn as any));
    }
    return (await q).map((r: Record<string, unknown>) => ({ ...r, deleted: false }));
  }
}
