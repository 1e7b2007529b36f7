import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject, p, paging, pagingShape } from '../../platform/http/param-types';
import { policies } from '../../people';
import { API_CLIENT_SCOPES } from '../../identity';
import { ApiClientsFlow, type ApiClientView } from '../../flows/identity/api-clients';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

const ApiClientOut = z
  .object({
    client_id: z.string().describe('cli_ + 24 hex'),
    name: z.string(),
    scopes: z.array(z.enum(API_CLIENT_SCOPES)),
    run_as_user_name: z.string().nullable().describe('whose rights the client has on /api'),
    scim_default_organisation_id: z.number().int().nullable().describe('SCIM: the organisation of persons whose department names none'),
    secret_set: z.boolean().describe('always true: the secret itself is never shown again'),
    client_secret: z.string().optional().describe('only in the answers of POST /api/apiclients and rotate_secret: store it now'),
    secret_rotated_at: z.string().nullable(),
    last_used_at: z.string().nullable().describe('ISO 8601: last request with one of its tokens (updated at most once a minute)'),
    created_at: z.string(),
    created_by: z.string().nullable(),
  })
  .describe('An API client of the tenant (OAuth 2.0 client credentials)')
  .meta({ id: 'ApiClient' });

function present(v: ApiClientView) {
  return {
    client_id: v.row.client_id,
    name: v.row.name,
    scopes: v.row.scopes as (typeof API_CLIENT_SCOPES)[number][],
    run_as_user_name: v.runAs,
    scim_default_organisation_id: v.row.scim_default_organisation_id,
    secret_set: true,
    ...(v.secret ? { client_secret: v.secret } : {}),
    secret_rotated_at: iso(v.row.secret_rotated_at),
    last_used_at: iso(v.row.last_used_at),
    created_at: iso(v.row.created_at)!,
    created_by: v.createdBy,
  };
}

const ApiClientData = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  scopes: p
    .stringList()
    .pipe(z.array(z.enum(API_CLIENT_SCOPES, { message: `must be scopes: ${API_CLIENT_SCOPES.join(', ')}` })).min(1, 'must name at least one scope'))
    .describe(`any of ${API_CLIENT_SCOPES.join(', ')} (a list)`),
  run_as_user_name: z.string().trim().min(1).max(200).optional().describe('required for api.read and api.write'),
  scim_default_organisation_id: p
    .id()
    .optional()
    .describe(
      'SCIM (src/identity/scim/README.md): the organisation a provisioned person goes to when their department names no organisation (by external id, then name)',
    ),
});

const clientId = z.string().regex(/^cli_[0-9a-f]{24}$/, 'must be an API client id (cli_ + 24 hex)');

const USE =
  "A client gets access tokens from POST /oauth/token on the tenant's host (grant_type=client_credentials, HTTP Basic or client_id/client_secret in the body) " +
  'and sends them as Authorization: Bearer <token> (src/identity/apiclients/README.md).';

/** API clients of the tenant (superusers only; everyone else 403). */
export const apiClientRoutes = [
  defineRoute({
    method: 'post',
    path: '/apiclients',
    access: policies.superuser('create API clients'),
    resource: 'apiclients',
    summary: 'Create an API client; the answer holds its client_secret, shown only here (superusers)',
    description: `apiclient_data: name, scopes (${API_CLIENT_SCOPES.join(', ')}), run_as_user_name (required for the api scopes), scim_default_organisation_id (SCIM: where persons whose department names no organisation go). ${USE} An Idempotency-Key repeat runs again: an answer with a secret is never stored.`,
    input: z.object({ apiclient_data: z.preprocess(jsonObject, ApiClientData) }),
    output: ApiClientOut,
    created: true,
    secretInAnswer: true,
    async handler(ctx, input) {
      const v = await ctx.resolve(ApiClientsFlow).create(ctx.user, input.apiclient_data);
      return { items: [present(v)], message: 'API client created; store its client_secret now: it is not shown again' };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/apiclients',
    access: policies.superuser('list API clients'),
    resource: 'apiclients',
    summary: "The tenant's API clients, without secrets (superusers)",
    description: 'Paged like every list (limit, default 20, at most 100; offset), in creation order.',
    input: z.object({ ...pagingShape }),
    output: ApiClientOut,
    async handler(ctx, input) {
      return { items: (await ctx.resolve(ApiClientsFlow).list(paging(input))).map(present) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/apiclients/:client_id',
    access: policies.superuser('see API clients'),
    resource: 'apiclients',
    summary: 'One API client, without its secret (superusers)',
    input: z.object({ client_id: clientId }),
    output: ApiClientOut,
    async handler(ctx, input) {
      return { items: [present(await ctx.resolve(ApiClientsFlow).get(input.client_id))] };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/apiclients/:client_id',
    access: policies.superuser('delete API clients'),
    resource: 'apiclients',
    summary: 'Revoke an API client: its secret and every token it holds stop at once (superusers)',
    input: z.object({ client_id: clientId }),
    idempotencyKey: true,
    async handler(ctx, input) {
      await ctx.resolve(ApiClientsFlow).delete(ctx.user, input.client_id);
      return { items: [], message: `API client ${input.client_id} deleted; its tokens no longer work` };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/apiclients/:client_id/rotate_secret',
    access: policies.superuser('rotate API client secrets'),
    resource: 'apiclients',
    summary: 'A new client_secret, shown only in this answer; the old one and its tokens stop at once (superusers)',
    description: 'An Idempotency-Key repeat runs again (a new secret): an answer with a secret is never stored.',
    input: z.object({ client_id: clientId }),
    output: ApiClientOut,
    idempotencyKey: true,
    secretInAnswer: true,
    async handler(ctx, input) {
      const v = await ctx.resolve(ApiClientsFlow).rotateSecret(ctx.user, input.client_id);
      return { items: [present(v)], message: 'secret rotated; store the new client_secret now: it is not shown again' };
    },
  }),
];
