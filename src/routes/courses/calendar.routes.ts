import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { policies } from '../../people';
import { CalendarFeedFlow } from '../../flows/calendar/calendar-feed';
import { publicOrigin } from '../catalogue/certificates.routes';

const userNameParam = p.string(200).min(1, 'must not be empty');

const CalendarFeedOut = z
  .object({
    user_name: z.string(),
    feed_url: z
      .string()
      .nullable()
      .describe('https://<tenant host>/calendar/<token>.ics, only in the answer that made the token (it is stored hashed); null afterwards'),
    created: z.boolean().describe('true: this answer made the token'),
    created_at: z.string().describe('ISO 8601 date-time the token was made'),
  })
  .describe("A person's personal calendar feed (iCalendar, subscribed to by a calendar application)")
  .meta({ id: 'CalendarFeed' });

export const calendarFeedRoutes = [
  defineRoute({
    method: 'get',
    path: '/persons/:user_name/calendar',
    access: policies.selfOrManager('user_name', "see this person's calendar feed"),
    resource: 'calendar',
    summary: "The person's calendar feed URL; made on the first call (self, their manager, superuser)",
    description:
      'When the person has no feed, this call makes one: a random token of 256 bits (only its SHA-256 is stored) and answers ' +
      'feed_url = https://<tenant host>/calendar/<token>.ics with created=true. The token cannot be shown again: later calls ' +
      'answer feed_url null and created=false with the date it was made; DELETE it and GET again for a new URL. The feed (no ' +
      'login) lists the seats of the person (signed on, not the wait list) on course events that are not cancelled and have ' +
      'not ended, with their module events; it stops (404) after DELETE, while the person is deactivated, and on erasure.',
    input: z.object({ user_name: userNameParam }),
    output: CalendarFeedOut,
    secretInAnswer: true,
    async handler(ctx, input) {
      const view = await ctx.resolve(CalendarFeedFlow).feed(ctx.user, ctx.target, publicOrigin(ctx));
      return {
        items: [view],
        message: view.created ? `calendar feed made for ${input.user_name}` : `${input.user_name} has a calendar feed; its URL was shown when it was made`,
      };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/persons/:user_name/calendar',
    access: policies.selfOrManager('user_name', "revoke this person's calendar feed"),
    resource: 'calendar',
    summary: "Revoke the person's calendar feed: its URL answers 404 from now on (self, their manager, superuser)",
    description: 'No feed: 404. A later GET makes a new feed with a new URL.',
    input: z.object({ user_name: userNameParam }),
    idempotencyKey: true,
    async handler(ctx, input) {
      if (!(await ctx.resolve(CalendarFeedFlow).revoke(ctx.user, ctx.target))) throw ApiError.notFound(`calendar feed of ${input.user_name}`);
      return { items: [], message: `calendar feed of ${input.user_name} revoked` };
    },
  }),
];
