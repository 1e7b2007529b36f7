import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { withLazyChildren } from '../../src/platform/logging/lazy-child-logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

describe('lazy child loggers', () => {
  it('builds the child on first use only, and it then logs as the real child', async () => {
    const { lines, logger } = capture();
    let made = 0;
    const counting = Object.create(logger, { child: { value: (b: pino.Bindings, o?: pino.ChildLoggerOptions) => (made++, logger.child(b, o)) } });
    const lazy = withLazyChildren(counting);
    const unused = lazy.child({ req: 1 });
    expect(made).toBe(0);
    const child = lazy.child({ req: 2 });
    expect(child.isLevelEnabled('debug')).toBe(false);
    expect(made).toBe(1);
    expect('info' in child).toBe(true);
    child.info({ a: 1 }, 'hello');
    child.child({ sub: true }).warn('nested');
    child.level = 'warn';
    child.info('dropped');
    expect(made).toBe(1);
    expect(unused).toBeDefined();
    await new Promise((r) => setImmediate(r));
    expect(lines.map(({ req, a, sub, msg }) => ({ req, a, sub, msg }))).toEqual([
      { req: 2, a: 1, sub: undefined, msg: 'hello' },
      { req: 2, a: undefined, sub: true, msg: 'nested' },
    ]);
  });
});
