/**
 * The identity module: sessions, the login limits, sign-on hashes, SWT tokens (their checks and
 * which parameter names the user), CORS and the CSRF guard, all in Redis or the tenant's config.
 * What needs a person (login, signing on with a hash, the auth schemes) is in src/flows/identity.
 */
import type { AppModule } from '../platform/module';

export const identityModule: AppModule = {
  name: 'identity',
  register() {
    // Nothing to register: the auth schemes need persons (src/flows/identity registers them).
  },
};

/** Per-tenant CORS (before authentication) and the cross-site write check, mounted by app.ts. */
export { tenantCors, corsDecision } from './cors/cors-middleware';
export { csrfGuard } from './cors/csrf-guard';
/** Sessions and the tg-visit cookie (the session auth scheme, logout, the routes' cookie). */
export { SessionStore } from './accounts/session-store';
export { SESSION_COOKIE, sessionCookieOf } from './accounts/session-cookie';
/** Password login: its limits, and the session, sign-on hash and security events it ends in; logout. */
export { LoginThrottle } from './accounts/login-throttle';
export { LoginService } from './accounts/login.service';
/** Sign-on hashes: forward_url, using a hash up (validate), validate_auth_token. */
export { SignonService } from './sso/signon.service';
/** SWT: the header, the token's checks, the parameter that names the user, the admin page's explanation. */
export { presentedSwt, swtRefusal } from './sso/swt-header';
export { SwtRejected, verifySwt, type SwtCheckResult } from './sso/swt-token';
export { identifierOf, type SwtIdentifier } from './sso/swt-identifier';
export { SwtChecker, MAX_BUILT_TOKEN_SECONDS, type SwtCheckInput } from './sso/swt-checker';
/** API clients (OAuth 2.0 client credentials): their rows, secrets, access tokens and the token endpoint's grant. */
export { ApiClientsRepository, type ApiClientRow } from './apiclients/api-clients.repository';
export { API_CLIENT_SCOPES, newClientId, newClientSecret, sha256Hex, secretMatches, type ApiClientScope } from './apiclients/client-secret';
export { AccessTokenStore, type AccessTokenGrant } from './apiclients/access-tokens';
export { ClientCredentialsGrant, OAuthError, type TokenResponse } from './apiclients/client-credentials';
/** Identity providers (OIDC, SAML) of the tenant, the relying party's side of an OIDC sign-in and the service provider's of a SAML one. */
export { IdentityProvidersService, type IdentityProviderInput } from './providers/identity-providers.service';
export { type IdentityProviderRow, type MatchField } from './providers/identity-providers.repository';
export { OidcRelyingParty } from './providers/oidc-relying-party';
export { SamlServiceProvider } from './providers/saml-service-provider';
export { certificateExpiries } from './providers/saml-metadata';
export { SsoRefused } from './providers/sso-refused';
export { ssoEndpoints, type SsoEndpoints } from './providers/sso-endpoints';
/** The tenant's Ed25519 keys for verifiable credentials (issue 38): the active one, rotation, the published JWKS. */
export { CredentialKeys, type CredentialKeyRow, type SigningKey } from './credentialkeys/credential-keys';
export { CredentialKeysAdmin, presentCredentialKey, type CredentialKeyView } from './credentialkeys/credential-keys-admin';
/** SCIM 2.0 (issue 37): filters, PATCH bodies, errors, discovery documents, the links of persons and roles to SCIM attributes. */
export { ScimError, SCIM_ERROR_SCHEMA, type ScimType } from './scim/scim-error';
export { CORE_USER_SCHEMA, ENTERPRISE_USER_SCHEMA, CORE_GROUP_SCHEMA, canonicalAttribute } from './scim/scim-attribute-path';
export { parseFilter, parsePath, type ScimFilter, type ScimPath, type ScimValue, type CompareOp } from './scim/scim-filter';
export { normalizePatch, scimBoolean, PATCH_OP_SCHEMA, type PatchOperation } from './scim/scim-patch';
export { serviceProviderConfig, resourceTypes, schemas as scimSchemas, listResponse, SCIM_MAX_RESULTS, LIST_RESPONSE_SCHEMA } from './scim/scim-discovery';
export { project as projectScimResource } from './scim/scim-projection';
export { ScimLinks, type ScimGroupLink } from './scim/scim-links.repository';
