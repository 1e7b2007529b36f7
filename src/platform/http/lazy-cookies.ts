import type { Request } from 'express';
import cookieParser from 'cookie-parser';

/**
 * req.cookies and req.signedCookies parsed on first read instead of by a middleware on every
 * request. cookie-parser stored three new properties on every request (secret, cookies,
 * signedCookies: hidden-class transitions on the request object) and parsed every cookie, about
 * 2% of the API's CPU on GET /api/person. The values are cookie-parser's own (its middleware runs
 * on a scratch object), so `j:` JSON cookies and everything else read the same; a request that
 * never reads them (SWT calls, the operator API) pays nothing.
 */
const parse = cookieParser();
const noop = () => {};

interface Parsed {
  headers: { cookie?: string };
  cookies?: Record<string, unknown>;
  signedCookies?: Record<string, unknown>;
  secret?: string;
}

function parseHeader(header: string | undefined): Parsed {
  const scratch: Parsed = { headers: { cookie: header }, cookies: undefined, signedCookies: undefined, secret: undefined };
  parse(scratch as unknown as Request, undefined as never, noop);
  return scratch;
}

function own(req: object, name: 'cookies' | 'signedCookies', value: unknown): void {
  Object.defineProperty(req, name, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * Installs req.cookies / req.signedCookies on express's request prototype (app.request): parsed
 * at the first read, then an own property of the request like cookie-parser's (assignable).
 */
export function installLazyCookies(requestPrototype: object): void {
  for (const name of ['cookies', 'signedCookies'] as const) {
    Object.defineProperty(requestPrototype, name, {
      configurable: true,
      enumerable: false,
      get(this: Request) {
        const value = parseHeader(this.headers.cookie)[name];
        own(this, name, value);
        return value;
      },
      set(this: Request, value: unknown) {
        own(this, name, value);
      },
    });
  }
}

/**
 * One cookie's value as req.cookies[name] would give it, without materialising req.cookies on the
 * request (the session scheme reads one cookie per request). Reads req.cookies if it is already
 * the request's own (parsed or assigned earlier).
 */
export function requestCookie(req: Request, name: string): unknown {
  if (Object.prototype.hasOwnProperty.call(req, 'cookies')) return (req.cookies as Record<string, unknown> | undefined)?.[name];
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parseHeader(header).cookies?.[name];
}
