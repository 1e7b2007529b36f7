import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject, p, paging, pagingShape } from '../../platform/http/param-types';
import { policies } from '../../people';
import { IdentityProvidersService, certificateExpiries, ssoEndpoints, type IdentityProviderRow } from '../../identity';

const iso = (d: Date) => new Date(d).toISOString();

const IdentityProviderView = z
  .object({
    identityprovider_id: z.string().describe('uuid'),
    name: z.string(),
    type: z.enum(['oidc', 'saml']),
    issuer: z.string().describe("OIDC: the issuer URL; SAML: the IdP's entity id (from its metadata)"),
    client_id: z.string().nullable().describe('OIDC only (null for SAML)'),
    client_secret_set: z.boolean().describe('the secret itself is write-only and never shown'),
    scopes: z.string(),
    match_claim: z.string(),
    match_field: z.enum(['email', 'user_name', 'extern_person_id']),
    jit: z.boolean(),
    jit_organisation_id: z.number().int().nullable(),
    jit_role_ids: z.array(z.number().int()),
    redirect_uri: z.string().optional().describe('OIDC: paste into the identity provider: https://<this host>/api/sso/<id>/callback'),
    metadata_url: z.string().nullable().optional().describe('SAML: the IdP metadata URL it was read from at the last save (null: metadata_xml was given)'),
    sso_url: z.string().optional().describe("SAML: the IdP's SSO URL (HTTP-Redirect binding), from its metadata"),
    certificates_not_after: z
      .array(z.string())
      .optional()
      .describe('SAML: expiry of each IdP signing certificate from the metadata; save the metadata again after the IdP rolls its key'),
    sp_entity_id: z
      .string()
      .optional()
      .describe('SAML: paste into the IdP as entity id / Identifier / Audience URI: https://<this host>/api/sso/<id>/metadata'),
    sp_acs_url: z.string().optional().describe('SAML: paste into the IdP as ACS / Reply / Single sign-on URL: https://<this host>/api/sso/<id>/acs'),
    sp_metadata_url: z.string().optional().describe('SAML: our metadata, for IdPs that import it (the same URL as the entity id)'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .describe('An identity provider of the tenant (OIDC or SAML); the client secret is never shown')
  .meta({ id: 'IdentityProvider' });

function typeSpecific(r: IdentityProviderRow, host: string) {
  const urls = ssoEndpoints(host, r.id);
  if (r.type === 'oidc') return { redirect_uri: urls.redirectUri };
  return {
    metadata_url: r.metadata_url,
    sso_url: r.sso_url ?? '',
    certificates_not_after: certificateExpiries(r.certificates),
    sp_entity_id: urls.entityId,
    sp_acs_url: urls.acsUrl,
    sp_metadata_url: urls.metadataUrl,
  };
}

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
    ...typeSpecific(r, host),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

const hostOf = (headers: Record<string, string | string[] | undefined>) => String(headers.host ?? '').toLowerCase();

const Data = z
  .object({
    name: p.string(200).optional(),
    type: p.string(20).optional().describe('oidc or saml; cannot change on PUT'),
    issuer: p
      .string(2000)
      .optional()
      .describe('https URL of the OpenID provider (http only with IDENTITY_PROVIDERS_ALLOW_HTTP=1); discovery at <issuer>/.well-known/openid-configuration'),
    client_id: p.string(500).optional(),
    client_secret: z.string().max(2000).optional().describe('write-only; "" on PUT removes it'),
    scopes: p.string(500).optional().describe('OIDC; default "openid email profile"'),
    metadata_xml: z
      .string()
      .max(600_000)
      .optional()
      .describe('SAML: the IdP metadata document (md:EntityDescriptor): entity id, SSO URL (HTTP-Redirect), signing certificates'),
    metadata_url: p
      .string(2000)
      .optional()
      .describe('SAML, instead of metadata_xml: https URL of the IdP metadata, read once when saved (give it again on PUT to read it again)'),
    match_claim: p
      .string(200)
      .optional()
      .describe(
        'OIDC: claim naming the person: email (default), preferred_username or any custom claim. SAML: nameid (default: the NameID) or an attribute name',
      ),
    match_field: z.enum(['email', 'user_name', 'extern_person_id']).optional().describe('person field the claim is compared with (default email)'),
    jit: p.bool().optional().describe('1: an unknown person is created (default 0)'),
    jit_organisation_id: p.int().optional(),
    jit_role_ids: p.idList().optional(),
  })
  .strict();
const input = z.object({ identityprovider_data: z.preprocess(jsonObject, Data) });
const id = p.string(64).min(1);

const RULES =
  'identityprovider_data: name, type (oidc | saml); OIDC: issuer, client_id, client_secret (write-only), scopes; SAML: metadata_xml or metadata_url ' +
  '(420 naming it when it cannot be read or parsed, or names no SSO URL or signing certificate); both: match_claim, match_field ' +
  '(email | user_name | extern_person_id), jit (0/1), jit_organisation_id and jit_role_ids (needed with jit=1). ' +
  'Changes are in the audit log without the secret.';

/** Identity providers of the tenant (superusers only; everyone else 403). */
export const identityProviderRoutes = [
  defineRoute({
    method: 'post',
    path: '/identityproviders',
    access: policies.superuser('create identity providers'),
    resource: 'identityproviders',
    summary: 'Add an identity provider for sign-in (OIDC or SAML) (superusers)',
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
