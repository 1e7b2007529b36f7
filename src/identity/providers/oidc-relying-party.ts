import { inject, injectable } from 'tsyringe';
import { Issuer, generators, custom, type Client } from 'openid-client';
import { ApiError } from '../../platform/errors/api-error';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { IdentityProviderRow } from './identity-providers.repository';
import { IdentityProvidersService } from './identity-providers.service';
import { OidcStateStore, type PendingSignIn } from './oidc-state-store';
import { SsoRefused } from './sso-refused';
import { filteringAgents } from './saml-metadata-fetch';

/** Discovery documents are kept this long per issuer (in this process). */
const DISCOVERY_SECONDS = 300;
const discovered = new Map<string, { issuer: Issuer<Client>; until: number }>();
custom.setHttpOptionsDefaults({ timeout: 5000 });

/**
 * The relying party's side of OIDC (authorization code flow, PKCE S256, state and nonce) with
 * openid-client: it checks the ID token (signature, issuer, audience, expiry, nonce). Who the
 * claims name is the sign-in flow's (src/flows/identity/sso-sign-in.ts).
 */
@injectable()
export class OidcRelyingParty {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(OidcStateStore) private readonly states: OidcStateStore,
    @inject(IdentityProvidersService) private readonly providers: IdentityProvidersService,
  ) {}

  private async client(p: IdentityProviderRow, redirectUri: string): Promise<Client> {
    this.providers.checkIssuer(p.issuer);
    let hit = discovered.get(p.issuer);
    if (!hit || hit.until < Date.now()) {
      // Every call openid-client makes to the IdP (discovery, JWKS, token) is SSRF-safe like a
      // webhook: no loopback, private or link-local address, checked after DNS at connect time.
      if (!this.providers.allowsPrivateAddresses) custom.setHttpOptionsDefaults({ timeout: 5000, agent: (await filteringAgents(false)).https });
      try {
        hit = { issuer: await Issuer.discover(p.issuer), until: Date.now() + DISCOVERY_SECONDS * 1000 };
      } catch (e) {
        throw new ApiError(503, `the identity provider's discovery document could not be read (${(e as Error).message})`);
      }
      discovered.set(p.issuer, hit);
    }
    return new hit.issuer.Client({
      client_id: p.client_id ?? '',
      ...(p.client_secret ? { client_secret: p.client_secret } : { token_endpoint_auth_method: 'none' }),
      redirect_uris: [redirectUri],
      response_types: ['code'],
    });
  }

  /** Where to send the browser: the authorization endpoint with state, nonce and the PKCE challenge. */
  async authorizationUrl(p: IdentityProviderRow, redirectUri: string, forwardUrl: string): Promise<string> {
    const client = await this.client(p, redirectUri);
    const codeVerifier = generators.codeVerifier();
    const nonce = generators.nonce();
    const state = await this.states.save(this.tenant, { providerId: p.id, nonce, codeVerifier, forwardUrl });
    return client.authorizationUrl({
      scope: p.scopes,
      state,
      nonce,
      code_challenge: generators.codeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      redirect_uri: redirectUri,
    });
  }

  /** The callback: uses the state up, redeems the code, checks the ID token; its claims (with userinfo's) and the pending sign-in. */
  async finish(
    p: IdentityProviderRow,
    redirectUri: string,
    params: Record<string, string>,
  ): Promise<{ claims: Record<string, unknown>; pending: PendingSignIn }> {
    const pending = params.state ? await this.states.consume(this.tenant, params.state) : null;
    if (!pending) throw new SsoRefused('unknown, expired or already used state');
    if (pending.providerId !== p.id) throw new SsoRefused('the state belongs to another identity provider');
    if (params.error) throw new SsoRefused(`the identity provider answered ${params.error}`);
    const client = await this.client(p, redirectUri);
    try {
      const tokens = await client.callback(redirectUri, params, { state: params.state, nonce: pending.nonce, code_verifier: pending.codeVerifier });
      let claims: Record<string, unknown> = { ...tokens.claims() };
      if (tokens.access_token && client.issuer.metadata.userinfo_endpoint) {
        // Some providers put email and names in userinfo only; openid-client checks its sub against the ID token's.
        const info = await client.userinfo(tokens).catch(() => ({}));
        claims = { ...info, ...claims };
      }
      return { claims, pending };
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw new SsoRefused((e as Error).message);
    }
  }
}
