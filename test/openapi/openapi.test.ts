import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestApp, type TestApp } from '../support/test-app';
import { assertMatchesContract } from '../support/contract';

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
    expect(res.body.paths['/api/configitems/{config_item_id}'].get.security).toEqual([{ tgVisit: [] }, { swt: [] }]);
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
