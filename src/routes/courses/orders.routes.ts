import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, pagingShape, paging } from '../../platform/http/param-types';
import { OrderView } from '../../courses';
import { policies } from '../../people';
import { OrderViewsFlow } from '../../flows/sign-on/orders';

/** Orders of the order system (issue 36): read only; a sign-on makes or names them. */
export const orderRoutes = [
  defineRoute({
    method: 'get',
    path: '/orders',
    access: policies.superuser('list orders'),
    resource: 'orders',
    summary: 'Orders, newest first, each with the sign-ons it covers. Security: superuser',
    description:
      'user_name: the orders of that person (an order belongs to the person signed on with it); event_id: the orders with a sign-on (any status) to that event; ' +
      'both together narrow further. Unknown user_name or event_id: 404. Paging (limit 20, at most 100; offset). Others than superusers: 403. ' +
      'Orders are made at sign-on (POST /api/personevents/[event_id] with order_reference, when the config item order_system.enabled is on); a tenant without them lists none.',
    input: z.object({ user_name: p.string(200).min(1).optional(), event_id: p.id().optional(), ...pagingShape }),
    output: OrderView,
    async handler(ctx, input) {
      return { items: await ctx.resolve(OrderViewsFlow).list(input, paging(input)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/orders/:order_id',
    access: policies.superuser('see orders'),
    resource: 'orders',
    summary: 'One order with the sign-ons it covers. Security: superuser',
    description: "Unknown order (or another tenant's): 404. Others than superusers: 403.",
    input: z.object({ order_id: p.id() }),
    output: OrderView,
    async handler(ctx, input) {
      return { items: await ctx.resolve(OrderViewsFlow).one(input.order_id) };
    },
  }),
];
