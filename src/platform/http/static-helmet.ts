import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/** One header operation of helmet's: set a header, or remove one (value null). */
type HeaderOp = readonly [name: string, value: string | null];

/**
 * helmet's headers, found once by running helmet's own middleware at start-up, then set on each
 * response by one loop: helmet runs a chain of twelve middleware functions per request, each
 * calling the next through a closure. Same headers, same values, same order. Only for options
 * whose headers do not depend on the request (helmet's defaults; no CSP nonce functions):
 * recording refuses any helmet middleware that reads the request or the response beyond
 * setHeader/removeHeader.
 */
export function staticHelmet(options?: Readonly<HelmetOptions>): RequestHandler {
  const ops = helmetHeaderOps(options);
  return (_req, res, next) => {
    for (let i = 0; i < ops.length; i++) {
      const [name, value] = ops[i];
      if (value === null) res.removeHeader(name);
      else res.setHeader(name, value);
    }
    next();
  };
}

/** The setHeader/removeHeader calls helmet makes for a response, in order. */
export function helmetHeaderOps(options?: Readonly<HelmetOptions>): HeaderOp[] {
  const ops: HeaderOp[] = [];
  const refuse = (what: string) => (_t: object, prop: string | symbol) => {
    throw new Error(`staticHelmet: helmet read ${what}.${String(prop)}; these options depend on the request, use helmet() itself`);
  };
  const req = new Proxy({}, { get: refuse('req'), set: refuse('req') });
  const recorder: Record<string, unknown> = {
    setHeader: (name: string, value: unknown) => void ops.push([name, String(value)]),
    removeHeader: (name: string) => void ops.push([name, null]),
  };
  const res = new Proxy(recorder, {
    get: (t, prop) => (prop === 'setHeader' || prop === 'removeHeader' ? recorder[prop] : refuse('res')(t, prop)),
    set: refuse('res'),
  });
  let done = false;
  helmet(options)(req as never, res as never, (err?: unknown) => {
    if (err) throw err;
    done = true;
  });
  if (!done) throw new Error('staticHelmet: helmet did not finish synchronously');
  return ops;
}
