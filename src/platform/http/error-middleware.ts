import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { ApiError } from '../errors/api-error';
import { errorEnvelope } from './envelope';
import { requestLog } from '../tenant-scope/request-scope';
import { RETRY_AFTER_SECONDS, isDependencyDown, isUniqueViolation, isWritePaused } from '../errors/error-classes';
import { writePausedError } from '../clusters/write-pause';

/** Translates body-parser failures into envelope errors instead of HTML pages. */
function fromBodyParser(err: any): ApiError | null {
  switch (err?.type) {
    case 'entity.parse.failed':
      return new ApiError(420, 'malformed request body: not valid JSON');
    case 'entity.too.large':
      return new ApiError(413, `request body too large (limit ${err.limit} bytes)`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(420, `malformed request body: ${err.message}`);
    case 'parameters.too.many':
      return new ApiError(420, 'malformed request: too many parameters');
    case 'querystring.parse.rangeError':
      return new ApiError(420, 'malformed request body: parameters nested too deep (bracket form)');
    default:
      // express's own client errors (e.g. a path parameter that is not valid percent-encoding)
      if ((err?.expose === true || err instanceof URIError) && err.status >= 400 && err.status < 500) {
        return new ApiError(err.status === 413 ? 413 : 420, `malformed request: ${String(err.message).slice(0, 200)}`);
      }
      return null;
  }
}

/** Not a bug: the database or Redis cannot serve now (503), or an identical write won a race (409). */
function fromDependency(err: unknown): ApiError | null {
  if (isDependencyDown(err)) {
    return new ApiError(503, `service temporarily unavailable: a dependency (database or Redis) is not reachable; retry in ${RETRY_AFTER_SECONDS} seconds`, {
      retry_after_seconds: RETRY_AFTER_SECONDS,
    });
  }
  if (isUniqueViolation(err)) return new ApiError(409, 'conflict: the object already exists (an identical request was handled at the same time)');
  return null;
}

/** Every error leaves as the envelope; unexpected ones are logged with the request id only. */
export function errorMiddleware(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    let apiError = err instanceof ApiError ? err : fromBodyParser(err);
    if (!apiError && isWritePaused(err)) apiError = writePausedError(req);
    if (!apiError) {
      apiError = fromDependency(err);
      if (apiError) requestLog(req, logger).warn({ err }, apiError.message);
    }
    if (!apiError) {
      requestLog(req, logger).error({ err }, 'unhandled error');
      apiError = new ApiError(
        500,
        `internal server error (request id ${String(req.id ?? '') /* eslint-disable-line @typescript-eslint/no-base-to-string -- pino-http's type allows an object; our ids are strings */})`,
      );
    }
    if (res.headersSent) return;
    if (apiError.errorcode === 503 && !apiError.headers['Retry-After']) res.set('Retry-After', String(RETRY_AFTER_SECONDS));
    res.set(apiError.headers).status(apiError.status).json(errorEnvelope(apiError));
  };
}
