import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { policies } from '../../people';
import { p, paging, pagingShape } from '../../platform/http/param-types';
import { OUTBOUND_EVENT_TYPES } from '../../platform/outbound/outbound-events';
import { TEST_EVENT_TYPE, WebhooksService, type AttemptRow, type EndpointRow } from '../../messaging';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

const WebhookView = z
  .object({
    webhook_id: z.number().int(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.enum(OUTBOUND_EVENT_TYPES)),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().describe('why the endpoint is disabled (by whom, or after 5 days of failures)'),
    failing_since: z.string().nullable().describe('ISO 8601: first failed attempt since the last success; null while it answers'),
    previous_secret_until: z.string().nullable().describe('ISO 8601: after a rotation the previous secret signs too until then'),
    waiting_deliveries: z.number().int().describe('deliveries not yet delivered nor given up'),
    secret: z.string().optional().describe('whsec_ + base64 of 32 random bytes; only in the answers of POST /api/webhooks and rotate_secret'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .describe('A webhook endpoint of the tenant')
  .meta({ id: 'Webhook' });

const AttemptView = z
  .object({
    delivery_id: z.number().int().describe('one event to this endpoint; its attempts share it'),
    event_id: z.string().describe('the webhook-id header: the same on every attempt (and endpoint) of one event'),
    type: z.string().describe(`event type (${TEST_EVENT_TYPE} for a test event)`),
    attempt: z.number().int().describe('1 for the first attempt of the delivery'),
    status_code: z.number().int().nullable().describe('HTTP status of the answer; null when none came (network error, timeout, refused address)'),
    error: z.string().nullable().describe('why the attempt failed; null when it succeeded (2xx)'),
    duration_ms: z.number().int(),
    at: z.string().describe('ISO 8601: when the attempt ended'),
    delivery_state: z
      .enum(['pending', 'delivered', 'failed'])
      .describe('the delivery now: pending (another attempt will come), delivered or failed (given up)'),
    next_attempt_at: z.string().nullable().describe('ISO 8601: when a pending delivery is tried again'),
  })
  .describe('One attempt to deliver an event to the endpoint')
  .meta({ id: 'WebhookAttempt' });

function present(w: EndpointRow, secret = false) {
  const rotating = w.previous_secret_until && new Date(w.previous_secret_until).getTime() > Date.now();
  return {
    webhook_id: w.id,
    url: w.url,
    description: w.description,
    events: w.events as (typeof OUTBOUND_EVENT_TYPES)[number][],
    enabled: w.enabled,
    disabled_reason: w.enabled ? null : w.disabled_reason,
    failing_since: iso(w.failing_since),
    previous_secret_until: rotating ? iso(w.previous_secret_until) : null,
    waiting_deliveries: Number(w.waiting),
    ...(secret ? { secret: w.secret } : {}),
    created_at: iso(w.created_at)!,
    updated_at: iso(w.updated_at)!,
  };
}

const presentAttempt = (a: AttemptRow) => ({
  delivery_id: a.delivery_id,
  event_id: a.event_id,
  type: a.type,
  attempt: a.attempt,
  status_code: a.status_code,
  error: a.error,
  duration_ms: a.duration_ms,
  at: iso(a.at)!,
  delivery_state: a.delivery_state === 'sending' ? ('pending' as const) : a.delivery_state,
  next_attempt_at: a.delivery_state === 'pending' || a.delivery_state === 'sending' ? iso(a.next_attempt_at) : null,
});

const webhookId = p.id();
const events = p
  .stringList()
  .pipe(
    z.array(z.enum(OUTBOUND_EVENT_TYPES, { message: `must be event types: ${OUTBOUND_EVENT_TYPES.join(', ')}` })).min(1, 'must name at least one event type'),
  )
  .describe(`event types: ${OUTBOUND_EVENT_TYPES.join(', ')}`);
const url = p
  .string(2000)
  .min(1, 'must not be empty')
  .describe('https URL with a public address (http and private addresses only with WEBHOOKS_ALLOW_PRIVATE_TARGETS=1)');
const description = p.string(500);

const DELIVERY_RULES =
  'Each event is a POST with a JSON body {type, timestamp (ISO 8601), tenant (slug), data (the simple view of the object, with user_name and ids)} ' +
  'and the Standard Webhooks headers webhook-id (the same on every retry), webhook-timestamp (unix seconds) and webhook-signature ' +
  '(v1,<base64 HMAC-SHA256 of id.timestamp.body keyed with the base64-decoded part of the secret>; two, space-separated, for 24 h after a rotation). ' +
  'A 2xx answer within 10 s delivers it; anything else (network error, timeout, redirect: never followed, other status) is retried after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, then every 4 h ' +
  'until the event is 24 h old. An endpoint whose attempts have all failed for 5 days is disabled.';

/** Outbound webhooks of the tenant (superusers only; everyone else 403). */
export const webhookRoutes = [
  defineRoute({
    method: 'post',
    path: '/webhooks',
    access: policies.superuser('create webhooks'),
    secretInAnswer: true,
    resource: 'webhooks',
    errors: [409],
    summary: 'Register a webhook endpoint; the answer holds its secret, shown only here and on rotation (superusers)',
    description: `Events: ${OUTBOUND_EVENT_TYPES.join(', ')}. A tenant has at most webhooks.max_endpoints endpoints (config item, default 20): past it 409. ${DELIVERY_RULES}`,
    input: z.object({ url, events, description: description.optional() }),
    output: WebhookView,
    async handler(ctx, input) {
      const row = await ctx.resolve(WebhooksService).create(ctx.user, input);
      return { items: [present(row, true)], message: 'webhook created; store its secret now: it is not shown again' };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks',
    access: policies.superuser('list webhooks'),
    resource: 'webhooks',
    summary: "The tenant's webhook endpoints (superusers)",
    input: z.object({}),
    output: WebhookView,
    async handler(ctx) {
      return { items: (await ctx.resolve(WebhooksService).list()).map((w) => present(w)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks/:webhook_id',
    access: policies.superuser('see webhooks'),
    resource: 'webhooks',
    summary: 'One webhook endpoint (superusers)',
    input: z.object({ webhook_id: webhookId }),
    output: WebhookView,
    async handler(ctx, input) {
      return { items: [present(await ctx.resolve(WebhooksService).get(input.webhook_id))] };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/webhooks/:webhook_id',
    access: policies.superuser('change webhooks'),
    resource: 'webhooks',
    summary: 'Change a webhook endpoint: url, events, description, enabled (superusers)',
    description: 'Only the parameters given change. enabled=1 also ends a failure streak (an endpoint disabled after 5 days of failures starts afresh).',
    input: z.object({
      webhook_id: webhookId,
      url: url.optional(),
      events: events.optional(),
      description: description.optional(),
      enabled: p.bool().optional(),
    }),
    output: WebhookView,
    async handler(ctx, input) {
      const { webhook_id, ...change } = input;
      return { items: [present(await ctx.resolve(WebhooksService).update(ctx.user, webhook_id, change))], message: 'webhook updated' };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/webhooks/:webhook_id',
    access: policies.superuser('delete webhooks'),
    resource: 'webhooks',
    summary: 'Delete a webhook endpoint with its waiting deliveries and their history (superusers)',
    input: z.object({ webhook_id: webhookId }),
    output: WebhookView,
    async handler(ctx, input) {
      return { items: [present(await ctx.resolve(WebhooksService).delete(ctx.user, input.webhook_id))], message: 'webhook deleted' };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/:webhook_id/rotate_secret',
    access: policies.superuser('rotate webhook secrets'),
    secretInAnswer: true,
    resource: 'webhooks',
    summary: 'Give the endpoint a new secret, shown only in this answer; the previous one signs too for 24 h (superusers)',
    description: 'During those 24 h webhook-signature holds two signatures (new secret first). Rotating again within them drops the oldest secret.',
    input: z.object({ webhook_id: webhookId }),
    output: WebhookView,
    async handler(ctx, input) {
      const row = await ctx.resolve(WebhooksService).rotateSecret(ctx.user, input.webhook_id);
      return { items: [present(row, true)], message: 'secret rotated; store the new secret now: it is not shown again' };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/:webhook_id/test',
    access: policies.superuser('send test events'),
    resource: 'webhooks',
    summary: `Send a ${TEST_EVENT_TYPE} event to this endpoint, through the outbox like any event (superusers)`,
    description: 'Its attempts appear in GET /api/webhooks/[id]/deliveries. A disabled endpoint is a 409.',
    input: z.object({ webhook_id: webhookId }),
    output: WebhookView,
    async handler(ctx, input) {
      const { endpoint, eventId } = await ctx.resolve(WebhooksService).sendTest(ctx.user, input.webhook_id);
      return { items: [present(endpoint)], message: `test event ${eventId} queued` };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks/:webhook_id/deliveries',
    access: policies.superuser('see webhook deliveries'),
    resource: 'deliveries',
    summary: 'Recent delivery attempts to a webhook endpoint, newest first (superusers)',
    description: 'Events are kept 30 days. Paging: limit, offset.',
    input: z.object({ webhook_id: webhookId, ...pagingShape }),
    output: AttemptView,
    async handler(ctx, input) {
      return { items: (await ctx.resolve(WebhooksService).attempts(input.webhook_id, paging(input))).map(presentAttempt) };
    },
  }),
];
