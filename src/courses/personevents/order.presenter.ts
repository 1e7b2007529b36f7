import { z } from 'zod';
import { isoDateTime } from '../events/event.presenter';
import type { OrderRow } from './orders.repository';
import type { PersonEventRow } from './person-event.presenter';

/** A sign-on an order covers, as an Order shows it. */
const OrderSignOn = z.object({
  person_event_id: z.number().int(),
  event_id: z.number().int(),
  event_title: z.string(),
  startdate: isoDateTime(),
  enddate: isoDateTime(),
  user_name: z.string(),
  status: z.enum(['signed_on', 'waitlist', 'signed_off']).describe('signed_off: the sign-on ended but stays on the order as history'),
});

export const OrderView = z
  .object({
    order_id: z.number().int(),
    reference: z.string().nullable().describe('order_reference given at sign-on'),
    person_id: z.number().int().nullable().describe('the person the order belongs to (billed); null once that person is deleted'),
    user_name: z.string().nullable().describe("that person's user name"),
    created_at: isoDateTime(),
    personevents: z.array(OrderSignOn).describe('every sign-on on the order, signed-off ones too, oldest first'),
  })
  .describe(
    'Order (order system, config item order_system.enabled): made at sign-on by POST /api/personevents/[event_id] with order_reference, and named by later sign-ons with order_id. ' +
      'Fields: order_id, reference, person_id, user_name, created_at, personevents (the sign-ons it covers: person_event_id, event_id, event_title, startdate, enddate, user_name, status).',
  )
  .meta({ id: 'Order' });

export function presentOrder(o: OrderRow, signOns: readonly PersonEventRow[]) {
  return {
    order_id: o.id,
    reference: o.reference,
    person_id: o.person_id,
    user_name: o.user_name,
    created_at: o.created_at,
    personevents: signOns.map((s) => ({
      person_event_id: s.id,
      event_id: s.event_id,
      event_title: s.event_title,
      startdate: s.starts_at,
      enddate: s.ends_at,
      user_name: s.user_name,
      status: s.status,
    })),
  };
}
