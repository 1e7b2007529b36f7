import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { EventsRepository, OrdersRepository, PersonEventsRepository, presentOrder, type OrderFilters, type OrderRow } from '../../courses';
import { PersonDirectory, joinPersons } from '../../people';

/**
 * GET /api/orders and /api/orders/[order_id]: courses' orders with the holder's user name
 * (people) and the sign-ons each covers, with their persons' user names. Two statements for a
 * page: the orders, then the sign-ons of all of them.
 */
@injectable()
export class OrderViewsFlow {
  constructor(
    @inject(OrdersRepository) private readonly orders: OrdersRepository,
    @inject(PersonEventsRepository) private readonly personEvents: PersonEventsRepository,
    @inject(EventsRepository) private readonly events: EventsRepository,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
  ) {}

  private named(): Knex.QueryBuilder {
    return joinPersons(this.orders.base(), 'p', 'o.person_id', 'left').select('p.user_name');
  }

  /** Unknown user_name or event_id: 404. */
  async list(query: { user_name?: string; event_id?: number }, page: Paging) {
    const filters: OrderFilters = {};
    if (query.user_name !== undefined) {
      const person = await this.persons.find({ user_name: query.user_name }, ['id']);
      if (!person) throw ApiError.notFound(`person "${query.user_name}"`);
      filters.personId = person.id;
    }
    if (query.event_id !== undefined) {
      if (!(await this.events.find(query.event_id))) throw ApiError.notFound(`event ${query.event_id}`);
      filters.eventId = query.event_id;
    }
    return this.present(await this.orders.list(this.named(), filters, page));
  }

  async one(id: number) {
    const order = await this.orders.one(this.named(), id);
    if (!order) throw ApiError.notFound(`order ${id}`);
    return this.present([order]);
  }

  private async present(rows: OrderRow[]) {
    if (!rows.length) return [];
    const named = joinPersons(this.personEvents.base(), 'sp', 'pe.person_id').select('sp.user_name');
    const signOns = await this.personEvents.onOrders(
      named,
      rows.map((r) => r.id),
    );
    return rows.map((o) =>
      presentOrder(
        o,
        signOns.filter((s) => s.order_id === o.id),
      ),
    );
  }
}
