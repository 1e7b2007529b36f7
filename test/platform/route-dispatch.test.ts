import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../support/login';

// Routes are handed to their resource's router by the first path segment (mountRoutes); express'
// own matching rules must still hold: case-insensitive paths, a trailing slash, 404 for the rest.
let t: TestApp;
let acme: DemoTenant;
let cookie: string;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  cookie = await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin);
});
afterAll(async () => t?.close());

describe('route dispatch', () => {
  it('matches paths as express does: any case, a trailing slash, parameters', async () => {
    const api = client(t, acme.host, cookie);
    const own = await api.get('/api/person');
    expect(own.status).toBe(200);
    for (const path of ['/api/PERSON', '/api/Person/', `/api/persons/${own.body.person[0].user_name}`, `/api/Persons/${own.body.person[0].user_name}/`]) {
      const res = await api.get(path);
      expect(res.status, path).toBe(200);
    }
    expect((await api.get('/api/configitems/definitions')).status).toBe(200);
  });

  it('answers unknown calls, unknown methods and paths outside /api with the 404 envelope', async () => {
    for (const [method, path] of [
      ['get', '/api/nothing'],
      ['get', '/api'],
      ['get', '/api/'],
      ['get', '//api/person'],
      ['patch', '/api/person'],
      ['get', '/api/persons/x/y/z'],
    ] as const) {
      const res = await request(t.app)[method](path).set('Host', acme.host).set('Cookie', cookie);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body, `${method} ${path}`).toMatchObject({ valid: false, errorcode: 404 });
    }
    const outside = await request(t.app).get('/nothing').set('Host', acme.host);
    expect(outside.status).toBe(404);
    expect(outside.body).toMatchObject({ valid: false, errorcode: 404 });
  });

  it('serves HEAD from GET routes and answers OPTIONS with the methods of the matching routes', async () => {
    const head = await request(t.app).head('/api/person').set('Host', acme.host).set('Cookie', cookie);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toMatch(/^application\/json/);
    expect(head.text ?? '').toBe('');
    const options = await request(t.app).options('/api/persons/someone').set('Host', acme.host).set('Cookie', cookie);
    expect(options.status).toBe(200);
    expect(options.headers.allow).toBe('DELETE, GET, HEAD, PUT');
    expect(options.text).toBe('DELETE, GET, HEAD, PUT');
    const none = await request(t.app).options('/api/nothing').set('Host', acme.host).set('Cookie', cookie);
    expect(none.status).toBe(404);
  });

  it('decodes path parameters and refuses a bad percent-encoding before the method is known', async () => {
    const api = client(t, acme.host, cookie);
    const own = (await api.get('/api/person')).body.person[0].user_name as string;
    const encoded = own.replace(/./g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
    expect((await api.get(`/api/persons/${encoded}`)).body.persons?.[0]?.user_name).toBe(own);
    for (const method of ['get', 'patch'] as const) {
      const res = await request(t.app)[method]('/api/persons/%E0%A4%A').set('Host', acme.host).set('Cookie', cookie);
      expect(res.status, method).toBe(400);
      expect(res.body, method).toMatchObject({ valid: false, errorcode: 420 });
    }
  });

  it('still serves the routes around the API: OpenAPI document, health, the admin page', async () => {
    expect((await request(t.app).get('/api/openapi.json')).body.openapi).toMatch(/^3\./);
    expect((await request(t.app).get('/healthz')).status).toBe(200);
    expect((await request(t.app).get('/admin').set('Host', acme.host)).status).toBe(200);
  });
});
