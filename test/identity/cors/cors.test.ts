import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { TenantStore } from '../../../src/platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;

// From seeds/acme.json and seeds/globex.json (cors.origins).
const ACME_PORTAL = 'https://portal.acme.example';
const GLOBEX_INTRANET = 'https://intranet.globex.example';

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
});
afterAll(async () => t?.close());

function options(host: string, origin: string, method = 'PUT', headers = 'content-type,authorization,x-request-id') {
  return request(t.app)
    .options('/api/persons/ola')
    .set('Host', host)
    .set('Origin', origin)
    .set('Access-Control-Request-Method', method)
    .set('Access-Control-Request-Headers', headers);
}

describe('CORS per tenant', () => {
  it("echoes an origin from acme's cors.origins with credentials and Vary: Origin", async () => {
    const res = await client(t, acme.host).post('/api/login').set('Origin', ACME_PORTAL).send({ user_name: 'x', password: 'y', login: 1 });
    expect(res.status).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe(ACME_PORTAL);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
    // Kept on purpose: it only restricts no-cors loads (see the browser test).
    expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
  });

  it('answers the preflight of an allowed origin with 204, our methods and our headers', async () => {
    const res = await options(acme.host, ACME_PORTAL);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ACME_PORTAL);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-allow-methods'].split(',')).toEqual(['GET', 'POST', 'PUT', 'DELETE']);
    expect(res.headers['access-control-allow-headers'].split(',')).toEqual(['Content-Type', 'Authorization', 'X-Request-Id']);
  });

  it('gives any other origin no CORS header at all, on requests and preflights', async () => {
    for (const origin of ['https://evil.example', 'https://portal.acme.example.evil.example', 'http://portal.acme.example', 'null']) {
      const res = await client(t, acme.host).get('/api/configitems/cors.origins').set('Origin', origin);
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
      expect(res.headers['access-control-allow-credentials'], origin).toBeUndefined();
      expect(res.headers.vary).toMatch(/\bOrigin\b/);
      const pre = await options(acme.host, origin);
      expect(pre.headers['access-control-allow-origin'], origin).toBeUndefined();
      expect(pre.headers['access-control-allow-methods'], origin).toBeUndefined();
    }
  });

  it("acme's origin grants nothing on globex's host, and globex's grants nothing on acme's", async () => {
    expect((await options(globex.host, ACME_PORTAL)).headers['access-control-allow-origin']).toBeUndefined();
    expect((await options(acme.host, GLOBEX_INTRANET)).headers['access-control-allow-origin']).toBeUndefined();
    expect((await options(globex.host, GLOBEX_INTRANET)).headers['access-control-allow-origin']).toBe(GLOBEX_INTRANET);
  });

  it('a refused SWT token stays readable by an allowed page (CORS headers on the 401)', async () => {
    const res = await client(t, acme.host)
      .get('/api/configitems/cors.origins')
      .set('Origin', ACME_PORTAL)
      .set('Authorization', 'SWT username=ola&HMACSHA256=AAAA');
    expect(res.status).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe(ACME_PORTAL);
  });

  it('a change of cors.origins takes effect without restart', async () => {
    const NEW = 'https://new-intranet.globex.example';
    expect((await options(globex.host, NEW)).headers['access-control-allow-origin']).toBeUndefined();
    await t.container.resolve(TenantStore).setConfigItem(globex.tenantId, 'cors.origins', [NEW], 'test');
    await t.container.resolve(TenantResolver).publishChange(globex.tenantId);
    expect((await options(globex.host, NEW)).headers['access-control-allow-origin']).toBe(NEW);
    expect((await options(globex.host, GLOBEX_INTRANET)).headers['access-control-allow-origin']).toBeUndefined();
  });
});
