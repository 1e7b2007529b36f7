import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import { personsInSubtree } from '../../people';
import type { EventChanges } from '../../catalogue';

/** GET /api/changes?Type=events: events changed since a moment, for an organisation the sign-ons of its persons decide. */
@injectable()
export class EventChangesRepository implements EventChanges {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async since(start: Date, organisationId: number | undefined, page: Paging) {
    const q = this.db
      .table('events')
      .where('updated_at', '>=', start)
      .select('id as event_id', 'title', 'competence_id', 'parent_id', 'starts_at', 'ends_at', 'cancelled', 'locked', 'updated_at as changed_at')
      .orderBy([{ column: 'updated_at' }, { column: 'id' }])
      .limit(page.limit)
      .offset(page.offset);
    if (organisationId !== undefined) {
      q.whereIn('id', this.db.table('person_events').select('event_id').whereIn('person_id', personsInSubtree(this.db, organisationId) as any));
    }
    return (await q).map((r: Record<string, unknown>) => ({ ...r, deleted: false }));
  }
}
