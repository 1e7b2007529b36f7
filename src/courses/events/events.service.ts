import { inject, injectable } from 'tsyringe';
import type { ViewName } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { EventsRepository, type EventRow } from './events.repository';
import { presentEvent, type DescribedEvent, type EventExtras } from './event.presenter';

export interface EventViewOptions {
  view: ViewName;
  /** user_check: the person whose sign-on status to show (resolved and allowed by the route). */
  userCheck?: { personId: number };
}

@injectable()
export class EventsService {
  constructor(@inject(EventsRepository) private readonly repo: EventsRepository) {}

  /** An event by id (module events too); 404 when missing. */
  async get(id: number): Promise<EventRow> {
    const row = await this.repo.find(id);
    if (!row) throw ApiError.notFound(`event ${id}`);
    return row;
  }

  /** Course events `rows` with their module events `children` (read by the caller the same way), as the API shows them. */
  async present(rows: DescribedEvent[], children: DescribedEvent[], v: EventViewOptions): Promise<Record<string, unknown>[]> {
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
