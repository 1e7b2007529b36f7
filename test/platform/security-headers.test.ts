import { describe, expect, it } from 'vitest';
import express from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { staticHelmet } from '../../src/platform/http/static-helmet';
import { client, useAcmeApp } from '../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../support/login';

/** helmet 8's default headers, as every response of the app carries them. */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

/** Every header of a response but the ones that vary per response. */
function stable(headers: Record<string, unknown>) {
  const { date, etag, 'x-request-id': _id, ...rest } = headers;
  return rest;
}

describe('staticHelmet', () => {
  const build = (mw: express.RequestHandler) => {
    const app = express();
    app.use((_req, res, next) => {
      res.setHeader('X-Powered-By', 'set-before');
      next();
    });
    app.use(mw);
    app.get('/', (_req, res) => void res.json({ ok: true }));
    return app;
  };

  it('sets exactly the headers helmet() sets, with the same values, and removes X-Powered-By', async () => {
    const [ours, theirs] = await Promise.all([request(build(staticHelmet())).get('/'), request(build(helmet())).get('/')]);
    expect(stable(ours.headers)).toEqual(stable(theirs.headers));
    expect(Object.keys(ours.headers)).toEqual(Object.keys(theirs.headers));
    expect(ours.headers['x-powered-by']).toBeUndefined();
    expect(ours.headers).toMatchObject(SECURITY_HEADERS);
  });

  it('refuses options whose headers depend on the request', () => {
    const nonce = (_req: unknown, res: any) => `'nonce-${res.locals.nonce}'`;
    expect(() => staticHelmet({ contentSecurityPolicy: { directives: { scriptSrc: ["'self'", nonce] } } })).toThrow(/depend on the request/);
  });
});

describe('security headers of the app', () => {
  const bed = useAcmeApp();

  it('API answers, API errors and the health route carry helmet’s default headers and no X-Powered-By', async () => {
    const cookie = await loginCookie(bed.t, bed.acme.host, 'admin', ACME_PASSWORDS.admin);
    const answers = [
      await client(bed.t, bed.acme.host, cookie).get('/api/person'),
      await client(bed.t, bed.acme.host).get('/api/person'),
      await request(bed.t.app).get('/healthz'),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 200]);
    for (const res of answers) {
      expect(res.headers).toMatchObject(SECURITY_HEADERS);
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });
});
