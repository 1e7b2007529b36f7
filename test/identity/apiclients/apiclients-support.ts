import { expect } from 'vitest';
import request from 'supertest';
import type { TestApp } from '../../support/test-app';

export interface CreatedClient {
  client_id: string;
  client_secret: string;
}

/** POST /api/apiclients as the given (superuser) client; returns the id and the secret shown once. */
export async function createClient(admin: any, data: Record<string, unknown>): Promise<CreatedClient> {
  const res = await admin.post('/api/apiclients').send({ apiclient_data: data });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const c = res.body.apiclients[0];
  return { client_id: c.client_id, client_secret: c.client_secret };
}

/** POST /oauth/token on a host: client_secret_post by default, client_secret_basic with basic: true. */
export function tokenRequest(t: TestApp, host: string, c: CreatedClient, extra: Record<string, string> = {}, basic = false) {
  const r = request(t.app).post('/oauth/token').set('Host', host).type('form');
  if (basic) {
    const cred = Buffer.from(`${encodeURIComponent(c.client_id)}:${encodeURIComponent(c.client_secret)}`).toString('base64');
    return r.set('Authorization', `Basic ${cred}`).send({ grant_type: 'client_credentials', ...extra });
  }
  return r.send({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret, ...extra });
}

export async function accessToken(t: TestApp, host: string, c: CreatedClient, scope?: string): Promise<string> {
  const res = await tokenRequest(t, host, c, scope ? { scope } : {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.access_token;
}

/** A request on a tenant host with a Bearer token. */
export function bearer(t: TestApp, host: string, token: string) {
  const agent = request(t.app);
  const wrap = (r: request.Test) => r.set('Host', host).set('Authorization', `Bearer ${token}`);
  return {
    get: (url: string) => wrap(agent.get(url)),
    post: (url: string) => wrap(agent.post(url)),
    put: (url: string) => wrap(agent.put(url)),
    delete: (url: string) => wrap(agent.delete(url)),
  };
}
