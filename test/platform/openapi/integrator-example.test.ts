import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback-server';
import { ACME_PASSWORDS } from '../../support/login';
import { assertMatchesContract } from '../../support/contract';
import type { IntegratorExample } from '../../contract/example-result';

/**
 * The example is type-checked against the generated client by `npm run openapi:client` (its own
 * tsconfig); here it runs. Imported by a path tsc does not follow, so `tsc --noEmit` needs no
 * generated types.
 */
const EXAMPLE: string = '../../contract/integrator-example';

let t: TestApp;
let acme: DemoTenant;
let server: LoopbackServer;
const checked: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  // fetch cannot set Host: the server puts the tenant's host on every request it gets
  server = await serveOnLoopback((req, res) => {
    req.headers.host = acme.host;
    t.app(req, res);
  });
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

/** fetch that also checks every answer against the OpenAPI document, as client() does for supertest. */
const contractFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const res = await fetch(request);
  const text = await res.clone().text();
  const body = res.headers.get('content-type')?.includes('application/json') ? JSON.parse(text) : text;
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  assertMatchesContract(request.method.toLowerCase(), url.pathname + url.search, { status: res.status, body, headers });
  checked.push(`${request.method} ${url.pathname} ${res.status}`);
  return res;
};

describe('the integrator example (test/contract/integrator-example.ts) with the generated client', () => {
  it('logs in, lists persons, signs on to an event and reads the error envelope', async () => {
    const { integratorExample } = (await import(EXAMPLE)) as { integratorExample: IntegratorExample };
    const result = await integratorExample(`http://127.0.0.1:${server.port}`, { user_name: 'admin', password: ACME_PASSWORDS.admin }, contractFetch);
    expect(result.userName).toBe('admin');
    expect(result.persons.length).toBeGreaterThan(0);
    expect(result.persons.every((p) => typeof p.user_name === 'string')).toBe(true);
    expect(result.signedOn).toMatchObject({ event_id: expect.any(Number), status: expect.any(String) });
    expect(result.error).toMatchObject({ status: 404, errorcode: 404 });
    expect(checked).toEqual([
      'POST /api/login 200',
      'GET /api/persons 200',
      'GET /api/events 200',
      expect.stringMatching(/^POST \/api\/personevents\/\d+ 20[01]$/),
      'POST /api/personevents/2147483647 404',
    ]);
  });
});
