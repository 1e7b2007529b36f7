import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pinoHttp from 'pino-http';
import type { Logger } from 'pino';
import { maybeRequestScope } from '../tenancy/request-scope';
import { routeTemplate } from '../metrics/route-template';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** One JSON line per request: request id, tenant, route template, status, duration, user id. */
export function requestLogging(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customProps(req: any) {
      const scope = maybeRequestScope(req);
      return {
        tenant: scope?.tenant.slug,
        user_id: scope?.principal?.personId,
        route: routeTemplate(req),
      };
    },
    serializers: {
      req: (req) => ({ id: req.id, method: req.method, url: String(req.url).split('?')[0] }),
      res: (res) => ({ statusCode: res.statusCode }),
    },
    customLogLevel(_req, res, err) {
      if (err || res.statusCode >= 500) return 'error';
      return 'info';
    },
  });
}
