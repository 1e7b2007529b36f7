import { describe, expect, it } from 'vitest';
import type http from 'node:http';
import { warmRequestPath } from '../../../src/platform/lifecycle/request-path-warmup';

/** The start-up's request path warm-up (src/server.ts): what it sends, and that it leaves nothing open. */
describe('warmRequestPath', () => {
  it('sends the asked number of anonymous requests with the given Host, in turn over the paths, and closes its port', async () => {
    const seen: { host?: string; url?: string; auth?: string; cookie?: string }[] = [];
    const listener: http.RequestListener = (req, res) => {
      seen.push({ host: req.headers.host, url: req.url, auth: req.headers.authorization, cookie: req.headers.cookie });
      res.statusCode = 401;
      res.end('{}');
    };
    const r = await warmRequestPath(listener, 'acme.test', ['/api/person', '/api/events'], 25, 4);
    expect(r.requests).toBe(25);
    expect(seen).toHaveLength(25);
    expect(new Set(seen.map((x) => x.host))).toEqual(new Set(['acme.test']));
    expect(seen.filter((x) => x.url === '/api/person')).toHaveLength(13);
    expect(seen.every((x) => x.auth === undefined && x.cookie === undefined)).toBe(true);
  });

  it('sends nothing with a count of 0 (STARTUP_WARMUP_REQUESTS=0)', async () => {
    let calls = 0;
    const r = await warmRequestPath(() => calls++, 'acme.test', ['/api/person'], 0);
    expect(r).toEqual({ requests: 0, ms: 0 });
    expect(calls).toBe(0);
  });
});
