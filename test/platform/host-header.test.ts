import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { isValidHostName } from '../../src/platform/tenant-scope/host-name';
import { TenantResolver } from '../../src/platform/tenant-scope/tenant-resolver';
import { KNEX } from '../../src/platform/tokens';

let t: TestApp;
let acme: DemoTenant;
/** Statements the platform pool ran that look up a host. */
let hostLookups = 0;

beforeAll(async () => {
  t = await createTestApp({ TENANT_HOST_CACHE_MAX: '100' });
  acme = await importDemoTenant(t, 'acme');
  t.container.resolve<Knex>(KNEX).on('query', (q: { sql: string }) => {
    if (q.sql.includes('tenant_hosts')) hostLookups++;
  });
});
afterAll(async () => t?.close());

describe('host names', () => {
  it('accepts RFC 1123 names with an optional port and refuses everything else', () => {
    for (const ok of ['acme.localhost', 'ACME.example.com', 'a-b.c', 'x.test:3000', '127.0.0.1', 'host.example.', 'a'.repeat(63) + '.example']) {
      expect(isValidHostName(ok), ok).toBe(true);
    }
    const long = Array.from({ length: 64 }, () => 'abcd').join('.'); // 319 characters
    for (const bad of [
      '',
      'under_score.example',
      '-lead.example',
      'trail-.example',
      'a..b',
      'a'.repeat(64) + '.example',
      long,
      'x.test:99999',
      'x.test:',
      'ex ample',
      'evil.example/path',
      '[::1]',
      'é.example',
    ]) {
      expect(isValidHostName(bad), bad).toBe(false);
    }
  });

  it('answers an invalid Host with the unknown-tenant envelope without any database query', async () => {
    const before = hostLookups;
    for (const host of ['under_score.example', 'a'.repeat(300), 'bad!host']) {
      const res = await request(t.app).get('/api/configitems/cors.origins').set('Host', host);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ valid: false, errorcode: 404, message: 'unknown tenant: the Host header is not a valid host name' });
    }
    expect((await request(t.app).get('/admin').set('Host', 'bad!host')).status).toBe(404);
    expect(hostLookups).toBe(before);
    expect(t.container.resolve(TenantResolver).cacheSizes()).toMatchObject({ unknownHosts: 0 });
  });

  it('a Host whose port is not a number is an unknown tenant, not the tenant of its name (issue 40)', async () => {
    const asked = (host: string) => request(t.app).get('/api/configitems/cors.origins').set('Host', host);
    // the name with a real port is the tenant (401: it asks for a login)
    expect((await asked(`${acme.host}:3000`)).status).toBe(401);
    for (const host of [`${acme.host}:notaport`, `${acme.host}:`, `${acme.host}:99999`, `${acme.host}:80:80`]) {
      const res = await asked(host);
      expect(res.status, host).toBe(404);
      expect(res.body).toEqual({ valid: false, errorcode: 404, message: 'unknown tenant: the Host header is not a valid host name' });
    }
    // nor does it log in there, nor grant CORS, nor serve the tenant's admin page
    const login = await request(t.app)
      .post('/api/login')
      .set('Host', `${acme.host}:notaport`)
      .send({ user_name: 'admin', password: 'Acme-Admin-Pass-1', login: 1 });
    expect(login.status).toBe(404);
    const preflight = await request(t.app)
      .options('/api/person')
      .set('Host', `${acme.host}:notaport`)
      .set('Origin', 'https://portal.acme.example')
      .set('Access-Control-Request-Method', 'GET');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect((await request(t.app).get('/admin').set('Host', `${acme.host}:notaport`)).status).toBe(404);
  });

  it('keeps the host caches within TENANT_HOST_CACHE_MAX under a flood of random hosts, and the real host cached', async () => {
    const resolver = t.container.resolve(TenantResolver);
    expect((await request(t.app).get('/api/configitems/cors.origins').set('Host', acme.host)).status).toBe(401);
    let maxSeen = 0;
    const knownBefore = resolver.cacheSizes().knownHosts;
    for (let batch = 0; batch < 30; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, () =>
          request(t.app)
            .get('/api/configitems/cors.origins')
            .set('Host', `${randomBytes(6).toString('hex')}.flood.example`)
            .expect(404),
        ),
      );
      const sizes = resolver.cacheSizes();
      maxSeen = Math.max(maxSeen, sizes.unknownHosts);
      // known hosts and tenants have a bound of their own (TENANT_CACHE_MAX); random hosts never enter them
      expect(sizes.knownHosts).toBe(knownBefore);
    }
    expect(resolver.cacheSizes().max).toBe(100);
    expect(maxSeen).toBe(100);
    // Random hosts fill only the cache of unknown hosts: the tenant's host is still served from memory.
    const before = hostLookups;
    expect((await request(t.app).get('/api/configitems/cors.origins').set('Host', acme.host)).status).toBe(401);
    expect(hostLookups).toBe(before);
  });
});
