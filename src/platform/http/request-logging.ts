import { randomUUID } from 'node:crypto';
import type { Express, NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { maybeRequestScope } from '../tenancy/request-scope';
import { routeTemplate } from '../metrics/route-template';

declare module 'http' {
  interface IncomingMessage {
    /** The request id: a valid incoming X-Request-Id, else a random UUID; echoed as X-Request-Id. */
    id: string;
    /** A child logger with the request (id, method, path) bound, made on first use. */
    log: Logger;
  }
  interface ServerResponse {
    /** The request's logger (req.log). */
    log: Logger;
  }
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

const serializers = {
  req: (req: Request) => ({ id: req.id, method: req.method, url: String(req.url).split('?')[0] }),
  res: (res: Response) => ({ statusCode: res.statusCode }),
};

/**
 * One JSON line per request (request id, tenant, route template, status, duration, user id), the
 * same line pino-http wrote with our options before (message, level, keys and their order;
 * test/platform/request-log.test.ts compares them). pino-http did per request what we never
 * read: arrays of loggers on req and res, five more properties on each, a child logger (a proxy
 * here), a closure and three listeners: about 5% of the API's CPU on GET /api/person. Here the
 * request gets its id and one listener function; req.log and res.log are getters on express's
 * request and response prototypes that make the child logger on first use.
 */
export function requestLogging(logger: Logger, app: Pick<Express, 'request' | 'response'>) {
  const base = logger.child({}, { serializers });
  installLogGetters(app, base);
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    const started = Date.now();
    // the first of close, finish and error ends the request (as pino-http: an aborted request too)
    const done = (err?: Error) => {
      res.removeListener('close', done);
      res.removeListener('finish', done);
      res.removeListener('error', done);
      accessLine(req, res, started, err);
    };
    res.on('close', done);
    res.on('finish', done);
    res.on('error', done);
    next();
  };

  function accessLine(req: Request, res: Response & { err?: Error }, started: number, err?: Error): void {
    const failed = err || res.statusCode >= 500;
    // below info the line is not built at all
    if (!failed && !logger.isLevelEnabled('info')) return;
    const responseTime = Date.now() - started;
    const log = req.log;
    if (err || res.err || res.statusCode >= 500) {
      const error = err || res.err || new Error('failed with status code ' + res.statusCode);
      log[failed ? 'error' : 'info']({ res, err: error, responseTime, ...requestFacts(req, res) }, 'request errored');
      return;
    }
    log.info({ res, responseTime, ...requestFacts(req, res) }, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
  }
}

function installLogGetters(app: Pick<Express, 'request' | 'response'>, base: Logger): void {
  const own = (target: object, value: unknown) => Object.defineProperty(target, 'log', { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request) {
      const log = base.child({ req: this });
      own(this, log);
      return log;
    },
    set(this: Request, value: Logger) {
      own(this, value);
    },
  });
  Object.defineProperty(app.response, 'log', {
    configurable: true,
    get(this: Response) {
      return this.req.log;
    },
    set(this: Response, value: Logger) {
      own(this, value);
    },
  });
}

/** Tenant, user and route go into the access line's own object. */
function requestFacts(req: Request, res: Response) {
  const scope = maybeRequestScope(req);
  return { tenant: scope?.tenant.slug, user_id: scope?.principal?.personId, route: res.headersSent ? routeTemplate(req) : undefined };
}
