import { injectable } from 'tsyringe';
import type { Request } from 'express';
import type { AuthScheme } from '../../platform/auth/auth-scheme';
import type { RequestScope } from '../../platform/tenant-scope/request-scope';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AccessTokenStore, ApiClientsRepository } from '../../identity';
import { PrincipalLoader } from './principal-loader';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

function invalidToken(why: string): ApiError {
  return new ApiError(401, `invalid access token: ${why}`, {}, { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${why}"` });
}

function insufficientScope(needed: string, why: string): ApiError {
  return new ApiError(403, `not authorised: ${why}`, {}, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${needed}"` });
}

/**
 * `Authorization: Bearer <access token>` of an API client (POST /oauth/token). The token is looked
 * up under the tenant's Redis prefix (another tenant's token is unknown here: 401), then the client's
 * row is read: a deleted client or a rotated secret (secret_version) ends its tokens at once (401).
 * The principal is the client's run-as person with `via: 'bearer'`, the token's `scopes` and the
 * `clientId`. On /api a token needs api.read for reads (GET) and api.write for writes, else 403.
 * Other routers (SCIM) check `principal.scopes` themselves. last_used_at is written at most once
 * a minute per client.
 */
@injectable()
export class BearerAuthScheme implements AuthScheme {
  readonly name = 'bearer';

  async authenticate(req: Request, scope: RequestScope): Promise<Principal | null> {
    const header = req.headers.authorization;
    if (!header || !/^bearer /i.test(header)) return null;
    const token = header.slice(7).trim();
    const grant = await scope.container.resolve(AccessTokenStore).lookup(token);
    if (!grant) throw invalidToken('unknown or expired');
    const clients = scope.container.resolve(ApiClientsRepository);
    const client = await clients.byClientId(grant.clientId);
    if (!client || client.secret_version !== grant.secretVersion) throw invalidToken('revoked');
    if (req.baseUrl === '/api') {
      const read = READS.has(req.method);
      if (read && !grant.scopes.includes('api.read') && !grant.scopes.includes('api.write'))
        throw insufficientScope('api.read', 'the token has neither api.read nor api.write');
      if (!read && !grant.scopes.includes('api.write')) throw insufficientScope('api.write', 'the token is read-only (a write needs the scope api.write)');
    }
    if (client.run_as_person_id === null) throw insufficientScope('api.read', 'the API client has no run-as person');
    const principal = await scope.container.resolve(PrincipalLoader).byId(client.run_as_person_id, 'bearer');
    if (!principal) throw invalidToken('the run-as person no longer exists');
    if (!client.last_used_at || Date.now() - new Date(client.last_used_at).getTime() > 60_000) await clients.touch(client.client_id);
    // The client is master of its credentials: the run-as person's password age is not its concern.
    return { ...principal, mustChangePassword: null, scopes: grant.scopes, clientId: client.client_id };
  }
}
