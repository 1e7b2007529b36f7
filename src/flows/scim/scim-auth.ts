import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AccessTokenStore, ApiClientsRepository, LoginThrottle, ScimError, secretMatches, sha256Hex, type ApiClientRow } from '../../identity';

/** The caller of a SCIM request: the API client itself (no person) and its row (its default organisation). */
export interface ScimCaller {
  principal: Principal;
  client: ApiClientRow;
}

// Compared against when the client id is unknown, so an unknown id costs what a wrong secret does.
const NO_CLIENT_HASH = sha256Hex('no such client');

const challenge = (error?: string) => ({ 'WWW-Authenticate': error ? `Bearer realm="scim", error="${error}"` : 'Bearer realm="scim"' });

/**
 * SCIM's own authentication (not the /api auth schemes): `Authorization: Bearer <token>` of an API
 * client holding the scope `scim`, looked up under the tenant's Redis prefix (another tenant's
 * token is unknown here: 401). The client acts as itself: a principal with no person (personId 0),
 * superuser rights over persons and roles, audited as `client:<client_id>`. A token without `scim`
 * (an api.read or api.write one) is 403; its client's run-as person plays no part here.
 * `Authorization: Basic <client_id:client_secret>` works too, for provisioning clients that can only
 * send a fixed credential (Okta's "Basic Auth" mode, Keycloak's SCIM client extensions): counted by
 * the login limits under `client:<client_id>` before the secret is compared, as at POST /oauth/token.
 */
@injectable()
export class ScimAuthenticator {
  constructor(
    @inject(AccessTokenStore) private readonly tokens: AccessTokenStore,
    @inject(ApiClientsRepository) private readonly clients: ApiClientsRepository,
    @inject(LoginThrottle) private readonly throttle: LoginThrottle,
  ) {}

  async authenticate(authorization: string | undefined, ip: string): Promise<ScimCaller> {
    if (authorization && /^basic /i.test(authorization)) return this.caller(await this.basic(authorization, ip), ['scim']);
    if (!authorization || !/^bearer /i.test(authorization))
      throw new ScimError(401, 'an access token with the scope scim is required (Authorization: Bearer, from POST /oauth/token)', undefined, challenge());
    const grant = await this.tokens.lookup(authorization.slice(7).trim());
    if (!grant) throw new ScimError(401, 'invalid access token: unknown or expired', undefined, challenge('invalid_token'));
    const client = await this.clients.byClientId(grant.clientId);
    if (!client || client.secret_version !== grant.secretVersion)
      throw new ScimError(401, 'invalid access token: revoked', undefined, challenge('invalid_token'));
    if (!grant.scopes.includes('scim'))
      throw new ScimError(403, 'the access token lacks the scope scim', undefined, {
        'WWW-Authenticate': 'Bearer realm="scim", error="insufficient_scope", scope="scim"',
      });
    return this.caller(client, grant.scopes);
  }

  /** The client of a Basic credential; 401 for a wrong or unknown one, 429 past the login limits, 403 without the scope scim. */
  private async basic(authorization: string, ip: string): Promise<ApiClientRow> {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const refused = () => new ScimError(401, 'client authentication failed', undefined, { 'WWW-Authenticate': 'Basic realm="scim", charset="UTF-8"' });
    if (colon < 0) throw refused();
    let id: string;
    let secret: string;
    try {
      [id, secret] = [decodeURIComponent(decoded.slice(0, colon)), decodeURIComponent(decoded.slice(colon + 1))];
    } catch {
      throw refused();
    }
    const subject = `client:${id.slice(0, 100)}`;
    try {
      await this.throttle.attempt(subject, ip, 'oauth_token');
    } catch (err) {
      if (err instanceof ApiError && err.errorcode === 429) throw new ScimError(429, err.message, undefined, err.headers);
      throw err;
    }
    const client = await this.throttle.deciding(subject, ip, () => this.clients.byClientId(id));
    if (!secretMatches(secret, client?.secret_hash ?? NO_CLIENT_HASH) || !client) throw refused();
    await this.throttle.succeeded(subject, ip);
    if (!client.scopes.includes('scim')) throw new ScimError(403, 'the API client lacks the scope scim');
    return client;
  }

  private async caller(client: ApiClientRow, scopes: readonly string[]): Promise<ScimCaller> {
    if (!client.last_used_at || Date.now() - new Date(client.last_used_at).getTime() > 60_000) await this.clients.touch(client.client_id);
    return {
      client,
      principal: {
        personId: 0,
        userName: `client:${client.client_id}`,
        superuser: true,
        organisationId: null,
        mustChangePassword: null,
        via: 'bearer',
        scopes,
        clientId: client.client_id,
      },
    };
  }
}
