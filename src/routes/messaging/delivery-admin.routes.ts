import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape } from '../../platform/http/param-types';
import { DeliveryAdminService, type DeliveryListRow, type DeliveryRow } from '../../messaging';
import { ListDeliveriesFlow } from '../../flows/messages/list-deliveries';
import { policies } from '../../people';

const DAY_MS = 86_400_000;

const DeliveryView = z
  .object({
    delivery_id: z.number().int(),
    message_id: z.number().int(),
    title: z.string().optional(),
    user_name: z.string().optional().describe('the recipient'),
    sender_user_name: z.string().nullable().optional(),
    medium: z.enum(['email', 'sms']),
    address: z.string(),
    state: z.enum(['queued', 'sent', 'failed']),
    attempts: z.number().int(),
    reason: z.string().nullable().describe('the last error; kept after a retry until the next attempt'),
    created_at: z.string().optional().describe('when the message was sent, ISO 8601'),
    updated_at: z.string().describe('last state change, ISO 8601'),
  })
  .describe('One delivery (a message on one medium) with its state')
  .meta({ id: 'MessageDelivery' });

const present = (d: DeliveryRow & Partial<DeliveryListRow>) => ({
  delivery_id: d.id,
  message_id: d.message_id,
  ...(d.title !== undefined ? { title: d.kind === 'password' ? `${d.title} (password mail)` : d.title } : {}),
  ...(d.recipient_user_name !== undefined ? { user_name: d.recipient_user_name, sender_user_name: d.sender_user_name ?? null } : {}),
  medium: d.medium,
  address: d.address,
  state: d.state === 'sending' ? ('queued' as const) : d.state,
  attempts: d.attempts,
  reason: d.last_error,
  ...(d.created_at ? { created_at: new Date(d.created_at).toISOString() } : {}),
  updated_at: new Date(d.updated_at).toISOString(),
});

/** Listed before /messages/:message_id, whose id parameter would refuse "deliveries". */
export const deliveryAdminRoutes = [
  defineRoute({
    method: 'get',
    path: '/messages/deliveries',
    access: policies.superuser('list deliveries'),
    resource: 'deliveries',
    summary: "The tenant's deliveries per message and medium, failed first, then newest (superusers)",
    description: 'state: queued, sent or failed; since: messages sent from then on (default: the last 7 days). Paging: limit, offset.',
    input: z.object({
      state: z.enum(['queued', 'sent', 'failed'], { message: 'must be queued, sent or failed' }).optional(),
      since: p.date().optional(),
      ...pagingShape,
    }),
    output: DeliveryView,
    async handler(ctx, input) {
      const since = input.since ?? new Date(Date.now() - 7 * DAY_MS);
      const rows = await ctx.resolve(ListDeliveriesFlow).list({ state: input.state, since }, paging(input));
      return { items: rows.map(present) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/messages/deliveries/:delivery_id/retry',
    access: policies.superuser('retry deliveries'),
    resource: 'deliveries',
    summary: 'Send a failed delivery again (superusers); audited as delivery.retried',
    description:
      'The delivery goes back into the outbox (state queued) and the relay hands it to the workers like a new message. ' +
      'A delivery that is not failed is a 409; an unknown one 404.',
    input: z.object({ delivery_id: p.id() }),
    output: DeliveryView,
    async handler(ctx, input) {
      const row = await ctx.resolve(DeliveryAdminService).retry(ctx.user, input.delivery_id);
      return { items: [present(row)], message: `delivery ${input.delivery_id} queued again` };
    },
  }),
];
