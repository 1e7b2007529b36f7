import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express, { type NextFunction, type Request, type Response } from 'express';
import pino from 'pino';
import pinoHttp from 'pino-http';
import { requestLogging } from '../../src/platform/http/request-logging';
import { maybeRequestScope } from '../../src/platform/tenancy/request-scope';
import { routeTemplate } from '../../src/platform/metrics/route-template';
import { REDACT_PATHS } from '../../src/platform/logging/logger';

/** The access logging as it was with pino-http (our options), the reference the lines must match. */
function pinoHttpReference(logger: pino.Logger) {
  const facts = (req: any, res: http.ServerResponse) => {
    const scope = maybeRequestScope(req);
    return { tenant: scope?.tenant.slug, user_id: scope?.principal?.personId, route: res.headersSent ? routeTemplate(req) : undefined };
  };
  return pinoHttp({
    logger,
    wrapSerializers: false,
    genReqId(req, res) {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customSuccessObject: (req: any, res, line: object) => ({ ...line, ...facts(req, res) }),
    customErrorObject: (req: any, res, _err, line: object) => ({ ...line, ...facts(req, res) }),
    serializers: {
      req: (req) => ({ id: req.id, method: req.method, url: String(req.url).split('?')[0] }),
      res: (res) => ({ statusCode: res.statusCode }),
    },
    customLogLevel(_req, res, err) {
      if (err || res.statusCode >= 500) return 'error';
      return logger.isLevelEnabled('info') ? 'info' : 'silent';
    },
  });
}

type Line = Record<string, unknown>;
let entered: () => void = () => {};

function server(kind: 'ours' | 'reference', level: string) {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  const logger = pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: 1 }, timestamp: false }, sink);
  const app = express();
  app.use(kind === 'ours' ? requestLogging(logger, app) : pinoHttpReference(logger));
  app.get('/ok/:id', (_req, res) => void res.json({ valid: true }));
  app.get('/log', (req, res) => {
    req.log.warn({ detail: 1 }, 'from a route');
    res.log.info('through res.log');
    res.status(201).json({});
  });
  app.get('/boom', () => {
    throw new Error('kaput');
  });
  app.get('/gone', (_req, res) => void res.status(404).json({ valid: false }));
  app.get('/marked', (_req, res: Response & { err?: Error }) => {
    res.err = new Error('marked by the route');
    res.status(400).json({});
  });
  app.get('/slow', () => entered());
  app.use((_err: unknown, _req: Request, res: Response, _next: NextFunction) => void res.status(500).json({ valid: false }));
  const srv = app.listen(0, '127.0.0.1');
  return { srv, lines, url: () => `http://127.0.0.1:${(srv.address() as AddressInfo).port}` };
}

function get(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    }).on('error', reject);
  });
}

async function aborted(url: string): Promise<void> {
  const inside = new Promise<void>((r) => (entered = r));
  const req = http.get(`${url}/slow`, { headers: { 'X-Request-Id': 'gone-away' } });
  req.on('error', () => {});
  await inside;
  req.destroy();
}

/** The lines of a fixed sequence of calls, with the run-dependent fields taken out. */
async function linesOf(kind: 'ours' | 'reference', level: string): Promise<Line[]> {
  const s = server(kind, level);
  await new Promise((r) => s.srv.once('listening', r));
  await get(`${s.url()}/ok/7?secret=x`, { 'X-Request-Id': 'ok-1' });
  await get(`${s.url()}/log`, { 'X-Request-Id': 'log-1' });
  await get(`${s.url()}/boom`, { 'X-Request-Id': 'boom-1' });
  await get(`${s.url()}/gone`, { 'X-Request-Id': 'gone-1' });
  await get(`${s.url()}/marked`, { 'X-Request-Id': 'marked-1' });
  await get(`${s.url()}/ok/8`, { 'X-Request-Id': 'not a valid id!' });
  await aborted(s.url());
  await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => s.srv.close(r));
  return s.lines.map((l) => {
    const { responseTime, ...rest } = l;
    expect(typeof responseTime === 'number' || responseTime === undefined).toBe(true);
    const req = rest.req as { id?: string } | undefined;
    // a generated id is a UUID on both sides, never the invalid one sent
    if (req?.id && /^[0-9a-f-]{36}$/.test(req.id)) req.id = '<uuid>';
    if (rest.err) rest.err = { message: (rest.err as { message: string }).message, type: (rest.err as { type: string }).type };
    return rest;
  });
}

describe('access log lines', () => {
  for (const level of ['info', 'warn', 'error']) {
    it(`are the lines pino-http wrote, at level ${level}`, async () => {
      const ours = await linesOf('ours', level);
      if (process.env.SHOW_LINES) console.log(JSON.stringify(ours, null, 0));
      const reference = await linesOf('reference', level);
      expect(ours).toEqual(reference);
      expect(JSON.stringify(ours.map(Object.keys))).toBe(JSON.stringify(reference.map(Object.keys)));
      if (level === 'info') {
        expect(ours.map((l) => l.msg)).toEqual(['request completed', 'from a route', 'through res.log', 'request completed', 'request errored', 'request completed', 'request errored', 'request completed', 'request aborted']);
      }
    });
  }
});

describe('request id', () => {
  let s: ReturnType<typeof server>;
  beforeAll(async () => {
    s = server('ours', 'info');
    await new Promise((r) => s.srv.once('listening', r));
  });
  afterAll(async () => new Promise((r) => s.srv.close(r)));

  it('echoes a valid X-Request-Id and makes a UUID otherwise', async () => {
    const headersOf = (h: Record<string, string>) =>
      new Promise<http.IncomingHttpHeaders>((resolve) => http.get(`${s.url()}/ok/1`, { headers: h }, (res) => (res.resume(), resolve(res.headers))));
    expect((await headersOf({ 'X-Request-Id': 'abc.def:1-2_3' }))['x-request-id']).toBe('abc.def:1-2_3');
    expect((await headersOf({ 'X-Request-Id': 'x'.repeat(129) }))['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await headersOf({}))['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
