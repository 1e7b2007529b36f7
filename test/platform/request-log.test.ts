import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { REDACT_PATHS } from '../../src/platform/logging/logger';
import { ACME_PASSWORDS, loginCookie } from '../support/login';

const lines: any[] = [];
let t: TestApp;
let acme: DemoTenant;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  t = await createTestApp({}, pino({ level: 'info', redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink));
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => t?.close());

describe('request log', () => {
  it('writes one JSON line per request with request id, tenant, route, status, duration and user id, and no secrets', async () => {
    const cookie = await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin);
    await client(t, acme.host, cookie).get('/api/configitems/mail.from').set('X-Request-Id', 'log-test-1');
    const line = lines.find((l) => l.req?.id === 'log-test-1');
    expect(line).toMatchObject({
      msg: 'request completed',
      tenant: acme.slug,
      route: '/api/configitems/:config_item_id',
      res: { statusCode: 200 },
      user_id: expect.any(Number),
    });
    expect(line.responseTime).toEqual(expect.any(Number));
    expect(lines.filter((l) => l.req?.id === 'log-test-1')).toHaveLength(1);
    const all = JSON.stringify(lines);
    expect(all).not.toContain(ACME_PASSWORDS.admin);
    expect(all).not.toContain(cookie.split('=')[1]);
  });
});
