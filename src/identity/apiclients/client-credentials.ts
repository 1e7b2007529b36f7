import { inject, injectable } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { LoginThrottle } from '../accounts/login-throttle';
import { ApiClientsRepository } from './api-clients.repository';
import { AccessTokenStore } from './access-tokens';
import { secretMatches, sha256Hex } from './client-secret';

/** An RFC 6749 §5.2 error: `{error, error_description}` with its status (and WWW-Authenticate for Basic). */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
  get body() {
    return { error: this.error, error_description: this.description };
  }
}

export interface TokenRequest {
  authorization: string | undefined;
  body: Record<string, unknown>;
  ip: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

// Compared against when the client id is unknown, so an unknown id costs what a wrong secret does.
const NO_CLIENT_HASH = sha256Hex('no such client');

function text(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** client_secret_basic (RFC 6749 §2.3.1: form-urlencoded id and secret) or client_secret_post; never both. */
function clientCredentials(req: TokenRequest): { id: string; secret: string; basic: boolean } {
  const postId = text(req.body.client_id);
  const postSecret = text(req.body.client_secret);
  const auth = req.authorization;
  if (auth && /^basic /i.test(auth)) {
    if (postSecret !== undefined)
      throw new OAuthError(400, 'invalid_request', 'use one client authentication method: Basic or client_secret in the body, not both');
    const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw invalidClient(true, 'malformed Basic credentials');
    try {
      return {
        id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
        secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
        basic: true,
      };
    } catch {
      throw invalidClient(true, 'malformed Basic credentials');
    }
  }
  if (postId === undefined || postSecret === undefined)
    throw invalidClient(
      false,
      'client authentication required: HTTP Basic (client_secret_basic) or client_id and client_secret in the body (client_secret_post)',
    );
  return { id: postId, secret: postSecret, basic: false };
}

function invalidClient(basic: boolean, description = 'client authentication failed'): OAuthError {
  return new OAuthError(401, 'invalid_client', description, basic ? { 'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"' } : {});
}

/**
 * POST /oauth/token with grant_type=client_credentials (RFC 6749 §4.4) for the request's tenant.
 * Every client authentication is counted by the login limits (LoginThrottle, under the name
 * `client:<client_id>`) before the secret is compared, as a password login is.
 */
@injectable()
export class ClientCredentialsGrant {
  constructor(
    @inject(ApiClientsRepository) private readonly clients: ApiClientsRepository,
    @inject(AccessTokenStore) private readonly tokens: AccessTokenStore,
    @inject(LoginThrottle) private readonly throttle: LoginThrottle,
  ) {}

  async token(req: TokenRequest): Promise<TokenResponse> {
    const grantType = text(req.body.grant_type);
    if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is required');
    if (grantType !== 'client_credentials')
      throw new OAuthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported; use client_credentials`);
    const cred = clientCredentials(req);
    const subject = `client:${cred.id.slice(0, 100)}`;
    try {
      await this.throttle.attempt(subject, req.ip, 'oauth_token');
    } catch (err) {
      if (err instanceof ApiError && err.errorcode === 429) throw new OAuthError(429, 'temporarily_unavailable', err.message, err.headers);
      throw err;
    }
    const client = await this.throttle.deciding(subject, req.ip, () => this.clients.byClientId(cred.id));
    const ok = secretMatches(cred.secret, client?.secret_hash ?? NO_CLIENT_HASH);
    if (!client || !ok) throw invalidClient(cred.basic);
    await this.throttle.succeeded(subject, req.ip);
    const asked = text(req.body.scope);
    const scopes = asked === undefined || asked.trim() === '' ? client.scopes : [...new Set(asked.trim().split(/\s+/))];
    const unknown = scopes.filter((s) => !client.scopes.includes(s));
    if (unknown.length)
      throw new OAuthError(400, 'invalid_scope', `scope ${unknown.join(' ')} is not granted to this client (it has: ${client.scopes.join(' ')})`);
    const accessToken = await this.tokens.issue({ clientId: client.client_id, secretVersion: client.secret_version, scopes });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.tokens.ttlSeconds, scope: scopes.join(' ') };
  }
}
