import type { RequestHandler } from 'express';
import { activeSpan, tracingEnabled } from './tracing';
import { routeTemplate } from '../metrics/route-template';
import { maybeRequestScope } from '../tenant-scope/request-scope';

/**
 * Names each request's server span (made by the http instrumentation) after its route template,
 * `POST /api/messages`, with `http.route`, and adds the tenant (`tenant.id`, `tenant.slug`) when the
 * request has one; the status code and an error status for 5xx are the instrumentation's. Set when
 * the response is sent ('finish'), before the span ends ('close'). None when tracing is off.
 */
export function requestTracing(): RequestHandler[] {
  if (!tracingEnabled()) return [];
  return [
    (req, res, next) => {
      const span = activeSpan();
      if (span) {
        res.once('finish', () => {
          const route = routeTemplate(req);
          span.updateName(`${req.method} ${route}`);
          span.setAttribute('http.route', route);
          const tenant = maybeRequestScope(req)?.tenant;
          if (tenant) span.setAttributes({ 'tenant.id': tenant.id, 'tenant.slug': tenant.slug });
        });
      }
      next();
    },
  ];
}
