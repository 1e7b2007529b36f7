/**
 * Our URLs for one identity provider, always https on the tenant's host as the browser used it (TLS
 * ends at the proxy). The SAML entity id is the metadata URL: unique per tenant and provider, stable
 * while the provider exists, and resolvable (IdPs that import metadata by URL find it there).
 */
export interface SsoEndpoints {
  /** OIDC redirect URI. */
  redirectUri: string;
  /** SAML: our entity id (= the audience the IdP must put in assertions) and where our metadata is served. */
  entityId: string;
  metadataUrl: string;
  /** SAML: the Assertion Consumer Service (HTTP-POST binding). */
  acsUrl: string;
}

export function ssoEndpoints(host: string, providerId: string): SsoEndpoints {
  const base = `https://${host.toLowerCase()}/api/sso/${encodeURIComponent(providerId)}`;
  return { redirectUri: `${base}/callback`, entityId: `${base}/metadata`, metadataUrl: `${base}/metadata`, acsUrl: `${base}/acs` };
}
