import type pino from 'pino';
import type { Logger } from 'pino';

/**
 * A logger whose children are built on first use. pino-http makes a child logger for every
 * request (its bindings serialised and run through the redaction paths) and hands it to
 * req.log; most requests never log through it (no access line below info, no error), and building
 * it was about 2% of the API's CPU on GET /api/person. A child used once is the real pino child.
 */
export function withLazyChildren(logger: Logger): Logger {
  return Object.create(logger, {
    child: {
      value: (bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => lazy(() => logger.child(bindings, options)),
    },
  });
}

/** The real child, built at the first property read (a log call, a level check, a child of its own). */
function lazy(make: () => Logger): Logger {
  let real: Logger | undefined;
  return new Proxy({} as Logger, {
    get(_target, prop) {
      real ??= make();
      const value = Reflect.get(real, prop, real);
      return typeof value === 'function' ? value.bind(real) : value;
    },
    set(_target, prop, value) {
      real ??= make();
      return Reflect.set(real, prop, value, real);
    },
    has(_target, prop) {
      real ??= make();
      return Reflect.has(real, prop);
    },
  });
}
