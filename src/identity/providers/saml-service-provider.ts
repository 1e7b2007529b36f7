import { inject, injectable } from 'tsyringe';
import { SAML, ValidateInResponseTo, generateServiceProviderMetadata, type CacheProvider, type Profile } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';
import { ApiError } from '../../platform/errors/api-error';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { IdentityProviderRow } from './identity-providers.repository';
import { IdentityProvidersService } from './identity-providers.service';
import { SamlRequestStore, type PendingSamlRequest } from './saml-request-store';
import { OIDC_STATE_SECONDS } from './oidc-state-store';
import { SsoRefused } from './sso-refused';

/** Our side of one provider: the entity id (also the audience) and the ACS URL, both on the tenant's host. */
export interface SpEndpoints {
  entityId: string;
  acsUrl: string;
}

const SAML_NS = 'urn:oasis:names:tc:SAML:2.0:assertion';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const UNSPECIFIED_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
/** Clocks of the IdP and ours may differ this much (NotBefore / NotOnOrAfter). */
export const SAML_CLOCK_SKEW_MS = 60_000;

/** Well-known attribute names (Entra ID's claim URIs, LDAP/eduPerson OIDs, Okta's and Keycloak's usual names) → OIDC-like claims for jit. */
const ALIASES: Record<string, string[]> = {
  email: ['email', 'mail', 'emailaddress', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'urn:oid:0.9.2342.19200300.100.1.3'],
  given_name: ['given_name', 'givenName', 'firstName', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname', 'urn:oid:2.5.4.42'],
  family_name: ['family_name', 'surname', 'sn', 'lastName', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname', 'urn:oid:2.5.4.4'],
  preferred_username: ['preferred_username', 'username', 'uid', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name'],
};

/** The assertion's attributes (single values as strings), `nameid` (and `sub`) = the NameID, and the aliases above. */
export function samlClaims(profile: Profile): Record<string, unknown> {
  const attrs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((profile.attributes ?? {}) as Record<string, unknown>)) attrs[k] = Array.isArray(v) && v.length === 1 ? v[0] : v;
  const first = (names: string[]) => names.map((n) => attrs[n]).find((v) => typeof v === 'string' && v !== '');
  const aliases = Object.fromEntries(
    Object.entries(ALIASES)
      .map(([claim, names]) => [claim, first(names)])
      .filter(([, v]) => v !== undefined),
  );
  return { ...aliases, ...attrs, nameid: profile.nameID, sub: profile.nameID };
}

/**
 * The service provider's side of SAML 2.0 (Web Browser SSO, SP-initiated) with node-saml: the
 * AuthnRequest (HTTP-Redirect binding), and at the ACS (HTTP-POST binding) the response's checks:
 * node-saml verifies the XML signature (of the response or of the assertion, with the certificates
 * from the IdP metadata), the audience (our entity id), NotBefore/NotOnOrAfter and InResponseTo
 * against the pending request; here: issuer, Destination, Recipient and one use of each assertion.
 */
@injectable()
export class SamlServiceProvider {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(SamlRequestStore) private readonly requests: SamlRequestStore,
    @inject(IdentityProvidersService) private readonly providers: IdentityProvidersService,
  ) {}

  private nameIdFormat(p: IdentityProviderRow): string {
    return p.match_claim === 'nameid' && p.match_field === 'email' ? EMAIL_FORMAT : UNSPECIFIED_FORMAT;
  }

  private saml(p: IdentityProviderRow, sp: SpEndpoints, cacheProvider: CacheProvider): SAML {
    return new SAML({
      entryPoint: this.providers.checkSsoUrl(p),
      issuer: sp.entityId,
      audience: sp.entityId,
      callbackUrl: sp.acsUrl,
      idpCert: p.certificates,
      idpIssuer: p.issuer,
      identifierFormat: this.nameIdFormat(p),
      // Entra ID signs the assertion, Keycloak the response by default: either will do, never neither.
      wantAssertionsSigned: false,
      wantAuthnResponseSigned: false,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: OIDC_STATE_SECONDS * 1000,
      cacheProvider,
      acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
      // Let the IdP pick how the person authenticates (MFA, passwordless) rather than ask for a password.
      disableRequestedAuthnContext: true,
      generateUniqueId: () => this.requests.newRequestId(),
    });
  }

  /** SP metadata for the IdP: entity id, ACS URL (HTTP-POST), NameIDFormat; unsigned requests, signed assertions wanted. */
  metadata(p: IdentityProviderRow, sp: SpEndpoints): string {
    return generateServiceProviderMetadata({ issuer: sp.entityId, callbackUrl: sp.acsUrl, identifierFormat: this.nameIdFormat(p), wantAssertionsSigned: true });
  }

  /** Where to send the browser: the IdP's SSO URL with a deflated AuthnRequest, whose id is kept (with forward_url) for one use. */
  async authnRequestUrl(p: IdentityProviderRow, sp: SpEndpoints, forwardUrl: string): Promise<string> {
    const cache: CacheProvider = {
      saveAsync: async (id, issuedAt) => {
        await this.requests.save(this.tenant, id, { providerId: p.id, forwardUrl, issuedAt });
        return { value: issuedAt, createdAt: Date.now() };
      },
      getAsync: async () => null,
      removeAsync: async () => null,
    };
    return this.saml(p, sp, cache).getAuthorizeUrlAsync('', undefined, {});
  }

  /** The ACS: every check of the response; the person's claims and the pending sign-in (its forward_url). */
  async finish(p: IdentityProviderRow, sp: SpEndpoints, samlResponse: string): Promise<{ claims: Record<string, unknown>; pending: PendingSamlRequest }> {
    // node-saml asks for the InResponseTo id up to twice (response, subject confirmation): the first ask uses it up.
    let asked: string | null = null;
    let pending: PendingSamlRequest | null = null;
    const cache: CacheProvider = {
      saveAsync: async () => null,
      getAsync: async (id) => {
        if (asked === null) {
          asked = id;
          pending = await this.requests.consume(this.tenant, id);
          if (pending && pending.providerId !== p.id) throw new SsoRefused('the request belongs to another identity provider');
        }
        return id === asked && pending ? pending.issuedAt : null;
      },
      removeAsync: async () => null,
    };
    let profile: Profile | null;
    try {
      ({ profile } = await this.saml(p, sp, cache).validatePostResponseAsync({ SAMLResponse: samlResponse }));
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw new SsoRefused(samlMessage(e));
    }
    if (!profile || !pending) throw new SsoRefused('the response answers no pending sign-in');
    this.checkEnvelope(p, sp, samlResponse, profile);
    const assertion = (profile.getAssertion?.() as { Assertion?: any } | undefined)?.Assertion;
    const assertionId: string | undefined = assertion?.$?.ID;
    const until = Date.parse(assertion?.Conditions?.[0]?.$?.NotOnOrAfter ?? '') || Date.now() + 3600_000;
    if (!assertionId || !(await this.requests.firstUse(this.tenant, p.id, assertionId, until))) throw new SsoRefused('the assertion was already used');
    return { claims: samlClaims(profile), pending };
  }

  /** What node-saml leaves to us: the issuers, the response's Destination, the assertion's Recipient. */
  private checkEnvelope(p: IdentityProviderRow, sp: SpEndpoints, samlResponse: string, profile: Profile): void {
    if (profile.issuer !== p.issuer) throw new SsoRefused(`wrong issuer: the assertion is from ${String(profile.issuer)}, not ${p.issuer}`);
    const root = new DOMParser().parseFromString(Buffer.from(samlResponse, 'base64').toString('utf8'), 'text/xml').documentElement;
    const destination = root?.getAttribute('Destination');
    if (destination && destination !== sp.acsUrl) throw new SsoRefused(`wrong Destination ${destination}: expected ${sp.acsUrl}`);
    const responseIssuer = Array.from(root?.childNodes ?? []).find((n: any) => n.localName === 'Issuer' && n.namespaceURI === SAML_NS) as Element | undefined;
    if (responseIssuer && responseIssuer.textContent?.trim() !== p.issuer) throw new SsoRefused('wrong issuer of the response');
    const confirmations: any[] = (profile.getAssertion?.() as any)?.Assertion?.Subject?.[0]?.SubjectConfirmation ?? [];
    const recipients = confirmations.map((c) => c?.SubjectConfirmationData?.[0]?.$?.Recipient).filter(Boolean);
    if (!recipients.includes(sp.acsUrl)) throw new SsoRefused(`wrong or missing Recipient (${recipients.join(', ') || 'none'}): expected ${sp.acsUrl}`);
  }
}

function samlMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.length > 300 ? `${m.slice(0, 300)}…` : m;
}
