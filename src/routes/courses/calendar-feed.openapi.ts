/**
 * GET /calendar/{token}.ics in the OpenAPI document: an iCalendar feed, not the envelope, written
 * by hand next to calendar-feed.http.ts (as POST /oauth/token is).
 */
const ERROR_ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' };
const RETRY_AFTER = { $ref: '#/components/headers/Retry-After' };

export const calendarFeedOpenApi = {
  '/calendar/{file}': {
    get: {
      operationId: 'getCalendarFeed',
      summary: "A person's personal calendar feed (iCalendar, RFC 5545); no login",
      description:
        "On the tenant's host; `file` is `<token>.ics`, the token from GET /api/persons/[user_name]/calendar. Lists the person's seats " +
        '(signed on, not the wait list) on course events that are neither cancelled nor ended, each with its module events: one VEVENT ' +
        'per date, UID event-<event_id>-person-<person_id>@<tenant host> (the same as in the sign-on invites), DTSTART/DTEND in UTC, ' +
        'SEQUENCE, LOCATION, ORGANIZER (mail.from). No METHOD (a subscription). Rate limited per client address (60 a minute, 429 ' +
        "with Retry-After). 404 for an unknown or revoked token, a deactivated or erased person, and on another tenant's host.",
      tags: ['calendar'],
      security: [],
      'x-access': 'anyone holding the feed URL',
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+\\.ics$' }, description: '<token>.ics' }],
      responses: {
        '200': { description: 'the feed', content: { 'text/calendar': { schema: { type: 'string' } } } },
        '404': { description: 'no such feed', content: { 'application/json': { schema: ERROR_ENVELOPE } } },
        '429': {
          description: 'too many requests from this address',
          headers: { 'Retry-After': RETRY_AFTER },
          content: { 'application/json': { schema: ERROR_ENVELOPE } },
        },
        '503': {
          description: 'a dependency (database, Redis) is unavailable',
          headers: { 'Retry-After': RETRY_AFTER },
          content: { 'application/json': { schema: ERROR_ENVELOPE } },
        },
      },
    },
  },
};
