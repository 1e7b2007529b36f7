import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { AccessTokenStore, ApiClientsRepository, ScimError, type ApiClientRow } from '../../identity';

/** The caller of a SCIM request: the API client itself (no person) and its row (its default organisation). */
export interface ScimCaller {
  principal: Principal;
  client: ApiClientRow;
}

const challenge = (error?: string) => ({ 'WWW-Authenticate': error ? `Bearer realm="scim", error="${error}"` : 'Bearer realm="scim"' });

/**
 * SCIM's own authentication (not the /api auth schemes): `Authorization: Bearer <token>` of an API
 * client holding the scope `scim`, looked up under the tenant's Redis prefix (another tenant's
 * token is unknown here: 401). The client acts as itself: a principal with no person (personId 0),
 * superuser rights over persons and roles, audited as `client:<client_id>`. A token without `scim`
 * (an api.read or api.write one) is 403; its client's run-as person plays no part here.
 */
@injectable()
export class ScimAuthenticator {
  constructor(
    @inject(AccessTokenStore) private readonly tokens: AccessTokenStore,
    @inject(ApiClientsRepository) private readonly clients: ApiClientsRepository,
  ) {}

  async authenticate(authorization: string | undefined): Promise<ScimCaller> {
    if (!authorization || !/^bearer /i.test(authorization)) throw new ScimError(401, 'an access token with the scope scim is required (Authorization: Bearer, from POST /oauth/token)', undefined, challenge());
    const grant = await this.tokens.lookup(authorization.slice(7).trim());
    if (!grant) throw new ScimError(401, 'invalid access token: unknown or expired', undefined, challenge('invalid_token'));
    const client = await this.clients.byClientId(grant.clientId);
    if (!client || client.secret_version !== grant.secretVersion) throw new ScimError(401, 'invalid access token: revoked', undefined, challenge('invalid_token'));
    if (!grant.scopes.includes('scim')) throw new ScimError(403, 'the access token lacks the scope scim', undefined, { 'WWW-Authenticate': 'Bearer realm="scim", error="insufficient_scope", scope="scim"' });
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
        scopes: grant.scopes,
        clientId: client.client_id,
      },
    };
  }
}
