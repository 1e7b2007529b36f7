import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestApp, type TestApp } from '../../support/test-app';
import { assertMatchesContract } from '../../support/contract';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('OpenAPI document', () => {
  it('is served at /api/openapi.json on any host and validates as OpenAPI 3.1', async () => {
    const res = await request(t.app).get('/api/openapi.json').set('Host', 'whatever.example');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(res.body.paths['/api/login'].post.requestBody).toBeDefined();
    expect(res.body.paths['/api/configitems/{config_item_id}'].get.security).toEqual([{ tgVisit: [] }, { swt: [] }, { bearer: ['api.read'] }]);
    expect(res.body.paths['/oauth/token'].post.responses['200']).toBeDefined();
    // Idempotency-Key on every POST and the registration PUT, with its 409 and 422 answers.
    const send = res.body.paths['/api/messages'].post;
    expect(send.parameters.map((p: any) => p.name)).toContain('Idempotency-Key');
    expect(send.responses['422'].description).toMatch(/Idempotency-Key/);
    expect(send.responses['409'].description).toMatch(/still running/);
    expect(res.body.paths['/api/personcompetences/{competence_id}'].put.parameters.map((p: any) => p.name)).toContain('Idempotency-Key');
    // The operator API, under its own tag and bearer scheme.
    const platform = res.body.paths['/platform/tenants/{slug}/configitems/{config_item_id}'].put;
    expect(platform.tags).toEqual(['platform']);
    expect(platform.security).toEqual([{ platformToken: [] }]);
    expect(res.body.components.securitySchemes.platformToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    // SCIM (served outside defineRoute) under its own tag, Bearer scheme and x-access.
    const scimCreate = res.body.paths['/scim/v2/Users'].post;
    expect(scimCreate.tags).toEqual(['scim']);
    expect(scimCreate.security).toEqual([{ scimBearer: [] }]);
    expect(scimCreate['x-access']).toMatch(/scope scim/);
    expect(Object.keys(res.body.paths['/scim/v2/Groups/{id}'])).toEqual(['get', 'put', 'patch', 'delete']);
  });

  it('gives every operation an operationId of letters, digits and underscores only, each used once', async () => {
    const doc = (await request(t.app).get('/api/openapi.json')).body;
    const ids = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ at: `${method} ${path}`, id: op.operationId })),
    );
    expect(ids.length).toBeGreaterThan(90);
    expect(ids.filter(({ id }) => !/^[A-Za-z0-9_]+$/.test(id ?? ''))).toEqual([]);
    expect(new Set(ids.map(({ id }) => id)).size).toBe(ids.length);
    // words split at any other character: a dotted path segment, a path parameter at the end
    expect(doc.paths['/api/configitems/api.oauth.secret/check'].post.operationId).toBe('postConfigitemsApiOauthSecretCheck');
    expect(doc.paths['/api/persons/{user_name}'].get.operationId).toBe('getPersonsUser_name');
  });

  it("passes Redocly's recommended ruleset without an error or a warning (but the accepted ones), offline", async () => {
    const doc = (await request(t.app).get('/api/openapi.json')).body;
    const { createConfig, lintFromString } = await import('@redocly/openapi-core');
    const config = await createConfig({ extends: ['recommended'] });
    // test/contract/.redocly.lint-ignore.yaml: single sign-on's success is a 302 (a browser flow)
    const accepted = (p: { ruleId: string; location: { pointer?: string }[] }) =>
      p.ruleId === 'operation-2xx-response' && /^#\/paths\/~1api~1sso~1/.test(p.location[0]?.pointer ?? '');
    const lint = async (document: unknown) => {
      const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
      return problems.filter((p) => !accepted(p)).map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    };
    expect(await lint(doc)).toEqual([]);
    // the linter does see errors: an operationId with a character a URL cannot hold, a path parameter not declared
    const broken = structuredClone(doc);
    broken.paths['/api/login'].post.operationId = 'postLogin}';
    broken.paths['/api/persons/{user_name}'].get.parameters = [];
    const found = await lint(broken);
    expect(found).toContainEqual(expect.stringMatching(/^operation-operationId-url-safe at #\/paths\/~1api~1login\/post/));
    expect(found).toContainEqual(expect.stringMatching(/^path-parameters-defined at #\/paths\/~1api~1persons~1\{user_name\}\/get/));
  });

  it('the contract check rejects a response that drifts from the document', () => {
    const drifted = { status: 200, headers: { 'content-type': 'application/json' }, body: { valid: true, message: 'ok', login: [{ session_id: 42 }] } };
    expect(() => assertMatchesContract('post', '/api/login', drifted)).toThrow(/drifts/);
    const badError = { status: 404, headers: { 'content-type': 'application/json' }, body: { valid: false, message: 'x' } };
    expect(() => assertMatchesContract('get', '/api/nothing', badError)).toThrow(/ErrorEnvelope/);
  });

  it('renders the docs page', async () => {
    const res = await request(t.app).get('/docs/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });
});
