import express, { type Request, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { tenantMiddleware } from '../../platform/http/tenant-middleware';
import { requestScope } from '../../platform/tenant-scope/request-scope';
import { TenantRateLimiter, type RateLimitRule } from '../../platform/rate-limit/tenant-rate-limiter';
import { CalendarFeedFlow } from '../../flows/calendar/calendar-feed';

/** Per tenant and client address: a calendar application polls a feed every few minutes to hours; 256-bit tokens leave nothing to guess. */
export const CALENDAR_FEED_PER_ADDRESS: RateLimitRule = {
  name: 'calendar-feed:address',
  points: 60,
  durationSeconds: 60,
  message: 'too many calendar feed requests; retry after the Retry-After seconds',
};

/**
 * GET /calendar/<token>.ics on the tenant's host (issue 39): no login, rate limited per client
 * address like GET /verify/<code>; the person's upcoming seats as text/calendar. Unknown or revoked
 * token, a deactivated or erased person, another tenant's host: 404 in the envelope.
 */
export function calendarFeedHttp(container: DependencyContainer): express.Router {
  const router = express.Router();
  router.get('/:file', tenantMiddleware(container, { anonymous: true }), async (req: Request, res: Response) => {
    const scope = requestScope(req);
    res.set({ 'Cache-Control': 'no-store' });
    await scope.container.resolve(TenantRateLimiter).hit(CALENDAR_FEED_PER_ADDRESS, req.ip ?? '');
    const token = /^(.+)\.ics$/.exec(String(req.params.file))?.[1];
    const ics = token ? await scope.container.resolve(CalendarFeedFlow).ics(token) : undefined;
    if (!ics) throw ApiError.notFound('calendar feed');
    res.status(200).type('text/calendar; charset=utf-8').set('Content-Disposition', 'inline; filename="calendar.ics"').send(ics);
  });
  return router;
}
