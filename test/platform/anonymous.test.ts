import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { allRoutes } from '../../src/routes';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';

/**
 * Every /api route whose access rule needs a login answers an anonymous call with 401 in the
 * envelope, before anything else is looked at: a new route cannot forget it (the Security line's
 * "401 anonymous" for every endpoint at once). Path parameters get a value of the right look.
 */
let t: TestApp;
let acme: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => t?.close());

const loginRoutes = allRoutes.filter((r) => r.access.login);

describe('anonymous calls', () => {
  it(`every one of the ${loginRoutes.length} routes that need a login answers 401 in the envelope`, async () => {
    expect(loginRoutes.length).toBeGreaterThan(100);
    const wrong: string[] = [];
    for (const route of loginRoutes) {
      const path = '/api' + route.path.replace(/:([a-z_]+)/g, (_m, name: string) => (name.endsWith('_id') ? '1' : 'ola'));
      const res = await request(t.app)[route.method](path).set('Host', acme.host).set('Accept', 'application/json');
      if (res.status !== 401 || res.body.valid !== false || res.body.errorcode !== 401)
        wrong.push(`${route.method.toUpperCase()} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
  });
});
