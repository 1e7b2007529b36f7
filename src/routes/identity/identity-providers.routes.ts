import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject, p, paging, pagingShape } from '../../platform/http/param-types';
import { policies } from '../../people';
import { IdentityProvidersService, type IdentityProviderRow } from '../../identity';

const iso = (d: Date) => new Date(d).toISOString();

const IdentityProviderView = z
  .object({
    identityprovider_id: z.string().describe('uuid'),
    name: z.string(),
    type: z.enum(['oidc']),
    issuer: z.string(),
    client_id: z.string(),
    client_secret_set: z.boolean().describe('the secret itself is write-only and never shown'),
    scopes: z.string(),
    match_claim: z.string(),
    match_field: z.enum(['email', 'user_name', 'extern_person_id']),
    jit: z.boolean(),
    jit_organisation_id: z.number().int().nullable(),
    jit_role_ids: z.array(z.number().int()),
    redirect_uri: z.string().describe('paste into the identity provider: https://<this host>/api/sso/<id>/callback'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .describe("An identity provider of the tenant (OIDC); the client secret is never shown");

export function present(r: IdentityProviderRow, host: string) {
  return {
    identityprovider_id: r.id,
    name: r.name,
    type: r.type,
    issuer: r.issuer,
    client_id: r.client_id,
    client_secret_set: r.client_secret !== null && r.client_secret !== '',
    scopes: r.scopes,
    match_claim: r.match_claim,
    match_field: r.match_field,
    jit: r.jit,
    jit_organisation_id: r.jit_organisation_id,
    jit_role_ids: r.jit_role_ids,
    redirect_uri: `https://${host}/api/sso/${r.id}/callback`,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

const hostOf = (headers: Record<string, string | string[] | undefined>) => String(headers.host ?? '').toLowerCase();

const Data = z
  .object({
    name: p.string(200).optional(),
    type: p.string(20).optional().describe('oidc (saml: 420 "not supported yet")'),
    issuer: p.string(2000).optional().describe('https URL of the OpenID provider (http only with IDENTITY_PROVIDERS_ALLOW_HTTP=1); discovery at <issuer>/.well-known/openid-configuration'),
    client_id: p.string(500).optional(),
    client_secret: z.string().max(2000).optional().describe('write-only; "" on PUT removes it'),
    scopes: p.string(500).optional().describe('default "openid email profile"'),
    match_claim: p.string(200).optional().describe('claim naming the person: email (default), preferred_username or any custom claim'),
    match_field: z.enum(['email', 'user_name', 'extern_person_id']).optional().describe('person field the claim is compared with (default email)'),
    jit: p.bool().optional().describe('1: an unknown person is created (default 0)'),
    jit_organisation_id: p.int().optional(),
    jit_role_ids: p.idList().optional(),
  })
  .strict();
const input = z.object({ identityprovider_data: z.preprocess(jsonObject, Data) });
const id = p.string(64).min(1);

const RULES =
  'identityprovider_data: name, type (oidc), issuer, client_id, client_secret (write-only), scopes, match_claim, match_field ' +
  '(email | user_name | extern_person_id), jit (0/1), jit_organisation_id and jit_role_ids (needed with jit=1). ' +
  'Changes are in the audit log without the secret.';

/** Identity providers of the tenant (superusers only; everyone else 403). */
export const identityProviderRoutes = [
  defineRoute({
    method: 'post',
    path: '/identityproviders',
    access: policies.superuser('create identity providers'),
    resource: 'identityproviders',
    summary: 'Add an identity provider for sign-in (OIDC) (superusers)',
    description: RULES,
    created: true,
    input,
    output: IdentityProviderView,
    async handler(ctx, i) {
      const row = await ctx.resolve(IdentityProvidersService).create(ctx.user, i.identityprovider_data);
      return { items: [present(row, hostOf(ctx.headers))], message: 'identity provider created' };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/identityproviders',
    access: policies.superuser('list identity providers'),
    resource: 'identityproviders',
    summary: "The tenant's identity providers (superusers)",
    description: 'Paged like every list (limit, default 20, at most 100; offset), in creation order.',
    input: z.object({ ...pagingShape }),
    output: IdentityProviderView,
    async handler(ctx, input) {
      return { items: (await ctx.resolve(IdentityProvidersService).list(paging(input))).map((r) => present(r, hostOf(ctx.headers))) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/identityproviders/:identityprovider_id',
    access: policies.superuser('see identity providers'),
    resource: 'identityproviders',
    summary: 'One identity provider (superusers)',
    input: z.object({ identityprovider_id: id }),
    output: IdentityProviderView,
    async handler(ctx, i) {
      return { items: [present(await ctx.resolve(IdentityProvidersService).get(i.identityprovider_id), hostOf(ctx.headers))] };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/identityproviders/:identityprovider_id',
    access: policies.superuser('change identity providers'),
    resource: 'identityproviders',
    summary: 'Change an identity provider; only the fields given change (superusers)',
    description: RULES,
    idempotencyKey: true,
    input: z.object({ identityprovider_id: id, identityprovider_data: z.preprocess(jsonObject, Data) }),
    output: IdentityProviderView,
    async handler(ctx, i) {
      const row = await ctx.resolve(IdentityProvidersService).update(ctx.user, i.identityprovider_id, i.identityprovider_data);
      return { items: [present(row, hostOf(ctx.headers))], message: 'identity provider changed' };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/identityproviders/:identityprovider_id',
    access: policies.superuser('delete identity providers'),
    resource: 'identityproviders',
    summary: 'Remove an identity provider; sign-ins through it end at once (superusers)',
    idempotencyKey: true,
    input: z.object({ identityprovider_id: id }),
    output: IdentityProviderView,
    async handler(ctx, i) {
      const row = await ctx.resolve(IdentityProvidersService).delete(ctx.user, i.identityprovider_id);
      return { items: [present(row, hostOf(ctx.headers))], message: 'identity provider deleted' };
    },
  }),
];
