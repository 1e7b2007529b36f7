import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';

/** An order (order system) as GET /api/orders reads it; user_name is people's, added by the flow. */
export interface OrderRow {
  id: number;
  reference: string | null;
  person_id: number | null;
  user_name: string | null;
  created_at: Date;
}

export interface OrderFilters {
  /** orders of this person (the holder: a sign-on only ever goes on its person's own order) */
  personId?: number;
  /** orders with a sign-on (any status) to this event */
  eventId?: number;
}

/**
 * Orders, read only: they are written at sign-on (PersonEventsRepository.orderOf, createOrder).
 * The holder's user name is the people module's: a flow widens `base()` (alias `o`, the person
 * id in o.person_id) and hands the widened query back to list and one.
 */
@injectable()
export class OrdersRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  base(): Knex.QueryBuilder {
    return this.db.table('orders as o').select('o.id', 'o.reference', 'o.person_id', 'o.created_at');
  }

  /** Newest first (created_at, then id). */
  list(named: Knex.QueryBuilder, f: OrderFilters, page: Paging): Promise<OrderRow[]> {
    if (f.personId !== undefined) named.where('o.person_id', f.personId);
    if (f.eventId !== undefined) named.whereIn('o.id', this.db.table('person_events').select('order_id').where('event_id', f.eventId).whereNotNull('order_id'));
    return named
      .orderBy([
        { column: 'o.created_at', order: 'desc' },
        { column: 'o.id', order: 'desc' },
      ])
      .limit(page.limit)
      .offset(page.offset);
  }

  one(named: Knex.QueryBuilder, id: number): Promise<OrderRow | undefined> {
    return named.where('o.id', id).first();
  }
}
