import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import request from 'supertest';
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

/** express's weak ETag: W/"<byte length in hex>-<first 27 characters of the base64 SHA-1>". */
function weakEtag(body: Buffer): string {
  return `W/"${body.length.toString(16)}-${createHash('sha1').update(body).digest('base64').slice(0, 27)}"`;
}

const bed = useAcmeApp();

describe('security headers', () => {
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

describe('conditional GET', () => {
  it('tags GET /api/person with express’s weak ETag and answers 304 without a body when If-None-Match holds it', async () => {
    const cookie = await loginCookie(bed.t, bed.acme.host, 'admin', ACME_PASSWORDS.admin);
    const first = await client(bed.t, bed.acme.host, cookie).get('/api/person');
    expect(first.status).toBe(200);
    const tag = first.headers.etag;
    expect(tag).toBe(weakEtag(Buffer.from(first.text)));
    const again = await client(bed.t, bed.acme.host, cookie).get('/api/person').set('If-None-Match', tag);
    expect(again.status).toBe(304);
    expect(again.text ?? '').toBe('');
    expect(again.headers.etag).toBe(tag);
    const stale = await client(bed.t, bed.acme.host, cookie).get('/api/person').set('If-None-Match', 'W/"1-AAAAAAAAAAAAAAAAAAAAAAAAAAA"');
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(first.text);
  });
});
