import { describe, expect, it } from 'vitest';
import express from 'express';
import request from 'supertest';
import { weakEtag } from '../../src/platform/http/weak-etag';
import { client, useAcmeApp } from '../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../support/login';

const BODIES: unknown[] = ['', 'x', 'plain text', { valid: true, message: 'ok', person: [{ id: 1, name: 'Ærlig Øverås ✓ 🎉' }] }, 'y'.repeat(70_000), Buffer.alloc(0), Buffer.from([0, 1, 2, 255])];

/** An app answering each body with res.send, with express's default ETag or ours. */
function sender(ours: boolean) {
  const app = express();
  if (ours) app.set('etag', weakEtag);
  app.get('/:i', (req, res) => {
    res.send(BODIES[Number(req.params.i)]);
  });
  return app;
}

describe('weak ETag', () => {
  const ours = sender(true);
  const stock = sender(false);

  it.each(BODIES.map((_b, i) => [i]))('body %i gets the tag express gives it by default', async (i) => {
    const [a, b] = await Promise.all([request(ours).get(`/${i}`), request(stock).get(`/${i}`)]);
    expect(b.headers.etag).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
    expect(a.headers.etag).toBe(b.headers.etag);
  });

  it('has the format W/"<length hex>-<27 characters of base64 SHA-1>"', () => {
    expect(weakEtag(Buffer.from('hello'))).toBe('W/"5-qvTGHdzF6KLavt4PO0gs2a6pQ00"');
    expect(weakEtag('')).toBe('W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"');
    expect(weakEtag('ø', 'latin1')).toBe(weakEtag(Buffer.from([0xf8])));
  });
});

describe('conditional GET', () => {
  const bed = useAcmeApp();

  it('answers 304 without a body when If-None-Match holds the current ETag, 200 otherwise', async () => {
    const cookie = await loginCookie(bed.t, bed.acme.host, 'admin', ACME_PASSWORDS.admin);
    const first = await client(bed.t, bed.acme.host, cookie).get('/api/person');
    expect(first.status).toBe(200);
    const tag = first.headers.etag;
    expect(tag).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
    expect(tag).toBe(weakEtag(Buffer.from(first.text)));
    const again = await client(bed.t, bed.acme.host, cookie).get('/api/person').set('If-None-Match', tag);
    expect(again.status).toBe(304);
    expect(again.text ?? '').toBe('');
    expect(again.headers.etag).toBe(tag);
    const stale = await client(bed.t, bed.acme.host, cookie).get('/api/person').set('If-None-Match', 'W/"1-AAAAAAAAAAAAAAAAAAAAAAAAAAA"');
    expect(stale.status).toBe(200);
  });
});
