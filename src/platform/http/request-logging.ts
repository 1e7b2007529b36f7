import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pinoHttp from 'pino-http';
import type { Logger } from 'pino';
import { maybeRequestScope } from '../tenant-scope/request-scope';
import { routeTemplate } from '../metrics/route-template';
import { withLazyChildren } from '../logging/lazy-child-logger';
import { activeSpan } from '../tracing/tracing';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** One JSON line per request: request id, tenant, route template, status, duration, user id. */
export function requestLogging(logger: Logger) {
  // pino-http derives its logger with child() once at setup: that one is real, its per-request children lazy
  const setup = Object.create(logger, { child: { value: (b: object, o: object) => withLazyChildren(logger.child(b, o)) } });
  return pinoHttp({
    logger: setup,
    // Our serializers read the raw request and response: pino-http's default wrapping first copies
    // every request into a standard object (headers, parsed query string, ...) for each request's
    // child logger, most of a fast call's logging cost.
    wrapSerializers: false,
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // Tenant, user and route go into the access line's own object, not into a child logger's
    // bindings (customProps would stringify them and build a child logger per request).
    customSuccessObject: (req: any, res: ServerResponse, line: object) => ({ ...line, ...requestFacts(req, res) }),
    customErrorObject: (req: any, res: ServerResponse, _err: Error, line: object) => ({ ...line, ...requestFacts(req, res) }),
    serializers: {
      req: (req) => ({ id: req.id, method: req.method, url: String(req.url).split('?')[0] }),
      res: (res) => ({ statusCode: res.statusCode }),
    },
    customLogLevel(_req, res, err) {
      if (err || res.statusCode >= 500) return 'error';
      // 'silent' skips building the line (and its child logger) when info is not logged anyway
      return logger.isLevelEnabled('info') ? 'info' : 'silent';
    },
  });
}

function requestFacts(req: any, res: ServerResponse) {
  const scope = maybeRequestScope(req);
  const facts = { tenant: scope?.tenant.slug, user_id: scope?.principal?.personId, route: res.headersSent ? routeTemplate(req) : undefined };
  // tracing on: the request's trace, to go from a log line to its trace
  const span = activeSpan();
  return span ? { ...facts, trace_id: span.spanContext().traceId } : facts;
}
