import { TenantClock } from '../../platform/time/tenant-clock';
import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { EventsRepository, type EventRow } from './events.repository';
import { applyEventFilters, type EventFilters } from './event-filters';
import { presentEvent, type EventExtras } from './event.presenter';

export interface EventView {
  view: 'simple' | 'full';
  /** user_check: the person whose sign-on status to show (resolved and allowed by the route). */
  userCheck?: { personId: number };
}

@injectable()
export class EventsService {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(EventsRepository) private readonly repo: EventsRepository,
    @inject(TenantClock) private readonly clock: TenantClock,
  ) {}

  async list(filters: EventFilters, paging: Paging, v: EventView): Promise<Record<string, unknown>[]> {
    const q = applyEventFilters(this.db, this.repo.base(), filters, this.clock);
    const rows = await this.repo.page(q, paging, filters.sort_direction ?? 'asc');
    return this.present(rows, v);
  }

  /** An event by id (module events too); 404 when missing. */
  async get(id: number): Promise<EventRow> {
    const row = await this.repo.find(id);
    if (!row) throw ApiError.notFound(`event ${id}`);
    return row;
  }

  async present(rows: EventRow[], v: EventView): Promise<Record<string, unknown>[]> {
    const children = await this.repo.children(rows.filter((r) => r.parent_id === null).map((r) => r.id));
    const all = [...rows, ...children];
    const ids = all.map((r) => r.id);
    const extras: EventExtras = {
      counts: await this.repo.seatCounts(ids),
      prerequisites: await this.repo.prerequisites(ids),
      children: new Map(),
    };
    for (const c of children) extras.children.set(c.parent_id!, [...(extras.children.get(c.parent_id!) ?? []), c]);
    if (v.userCheck) extras.userStatus = await this.repo.statusFor(v.userCheck.personId, ids);
    return rows.map((r) => presentEvent(r, v.view, extras));
  }
}
