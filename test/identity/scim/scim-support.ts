import { expect } from 'vitest';
import request from 'supertest';
import type { TestApp, DemoTenant } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { tenantDb } from '../../courses/events/events-support';
import { accessToken, createClient, type CreatedClient } from '../apiclients/apiclients-support';

export const SCIM_TYPE = 'application/scim+json';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A SCIM client on a tenant host with a Bearer token; bodies go as application/scim+json. */
export function scim(t: TestApp, host: string, token: string) {
  const agent = request(t.app);
  const wrap = (r: request.Test) => r.set('Host', host).set('Authorization', `Bearer ${token}`).set('Accept', SCIM_TYPE);
  const send = (r: request.Test, body?: unknown) => (body === undefined ? r : r.set('Content-Type', SCIM_TYPE).send(JSON.stringify(body)));
  return {
    get: (url: string) => wrap(agent.get(`/scim/v2${url}`)),
    post: (url: string, body: unknown) => send(wrap(agent.post(`/scim/v2${url}`)), body),
    put: (url: string, body: unknown) => send(wrap(agent.put(`/scim/v2${url}`)), body),
    patch: (url: string, body: unknown) => send(wrap(agent.patch(`/scim/v2${url}`)), body),
    delete: (url: string) => wrap(agent.delete(`/scim/v2${url}`)),
  };
}

/** The id of the acme organisation named `name`. */
export async function organisationId(t: TestApp, tenant: DemoTenant, name: string): Promise<number> {
  const row = await tenantDb(t, tenant).table('organisations').where({ name }).first('id');
  return row.id;
}

/** A `scim`-only API client of acme whose default organisation is Human Resources, and a token of it. */
export async function scimClient(t: TestApp, tenant: DemoTenant): Promise<{ client: CreatedClient; token: string; defaultOrganisationId: number }> {
  const admin = await asAcme(t, tenant.host, 'admin');
  const defaultOrganisationId = await organisationId(t, tenant, 'Human Resources');
  const client = await createClient(admin, { name: 'Entra ID provisioning', scopes: ['scim'], scim_default_organisation_id: defaultOrganisationId });
  return { client, token: await accessToken(t, tenant.host, client), defaultOrganisationId };
}

/** Asserts a SCIM error answer: status, the error schema, scimType when given, application/scim+json. */
export function expectScimError(res: request.Response, status: number, scimType?: string): void {
  expect(res.status, JSON.stringify(res.body ?? res.text)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
  const body = JSON.parse(res.text);
  expect(body).toMatchObject({ schemas: [ERROR_SCHEMA], status: String(status), detail: expect.any(String) });
  if (scimType) expect(body.scimType).toBe(scimType);
}

/** The SCIM answer's JSON (supertest does not parse application/scim+json by itself). */
export function json(res: request.Response): any {
  return res.text ? JSON.parse(res.text) : undefined;
}
